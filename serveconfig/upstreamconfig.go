package serveconfig

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

// UpstreamConfig is one entry of upstreams: (docs/serve.md#gateway): an MCP
// server mcpctl does not host, whose tools are served beside the config's
// tools through the same gate. Exactly one of Stdio and HTTP is set.
type UpstreamConfig struct {
	Name string
	// Stdio is argv of a server started without a shell and spoken to over
	// stdio; a relative program path with a slash is resolved against the
	// config's folder, a bare name through PATH (as for exec handlers).
	Stdio []string
	// Env names the variables copied from mcpctl's environment into a
	// stdio server's (PATH always is).
	Env  []string
	HTTP *UpstreamHTTP
	// Prefix is prepended to every exposed tool name.
	Prefix string
	// Include, when not empty, lists the upstream tool names served;
	// Exclude lists names never served.
	Include, Exclude []string
	// Facades are facade blocks keyed by the upstream's tool name.
	Facades facade.File
	// Refresh is how often tools/list is polled beside the upstream's
	// notifications/tools/list_changed (0: never).
	Refresh time.Duration
	// Timeout bounds one forwarded call, and each other request to the
	// running server (DefaultUpstreamTimeout).
	Timeout time.Duration
	// StartTimeout bounds one start or restart of the server: the process
	// or connection, initialize and the first tools/list
	// (DefaultUpstreamStartTimeout).
	StartTimeout time.Duration
	// Blue and Green, both set or both nil, are the sides of a blue/green
	// rollout (docs/serve.md#bluegreen), written in place of stdio, env
	// and http; Stdio, Env and HTTP are then green's (the live side's), and
	// OnSide(SideBlue) gives blue's. Rollout is the rollout block (nil:
	// the defaults).
	Blue, Green *UpstreamConn
	Rollout     *Rollout
	// Pos is where the entry starts.
	Pos Pos
}

// UpstreamHTTP is a streamable HTTP upstream: its URL and the headers sent
// with every request, each taken from an environment variable (Headers maps
// the header name to the variable's name).
type UpstreamHTTP struct {
	URL     string
	Headers map[string]string
}

// DefaultUpstreamTimeout bounds one call forwarded to an upstream, and
// DefaultUpstreamStartTimeout one start of it.
const (
	DefaultUpstreamTimeout      = 60 * time.Second
	DefaultUpstreamStartTimeout = 60 * time.Second
)

// Exposed returns the name an upstream tool is served under: Prefix + name.
func (u *UpstreamConfig) Exposed(name string) string { return u.Prefix + name }

// Serves reports whether the upstream tool name is served (tools.include,
// tools.exclude).
func (u *UpstreamConfig) Serves(name string) bool {
	if len(u.Include) > 0 && !slices.Contains(u.Include, name) {
		return false
	}
	return !slices.Contains(u.Exclude, name)
}

func (p *cfgParser) upstreams(cfg *Config, v *canon.Value, ptr string) error {
	if v.Kind != canon.Array {
		return p.errAt(ptr, "", "upstreams must be a list, got %s", v.Kind)
	}
	seen := map[string]string{}
	for i := range v.Items {
		up := ptr + "/" + strconv.Itoa(i)
		u, err := p.upstream(&v.Items[i], up)
		if err != nil {
			return err
		}
		if first, dup := seen[u.Name]; dup {
			return p.errAt(up+"/name", "", "upstream name %q is already used by %s", u.Name, first)
		}
		seen[u.Name] = up
		cfg.Upstreams = append(cfg.Upstreams, u)
	}
	return nil
}

func (p *cfgParser) upstream(v *canon.Value, ptr string) (*UpstreamConfig, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "an upstreams entry must be a mapping {name, stdio or http, …}, got %s", v.Kind)
	}
	u := &UpstreamConfig{Timeout: DefaultUpstreamTimeout, StartTimeout: DefaultUpstreamStartTimeout, Pos: p.posOf(ptr)}
	for i := range v.Members {
		m := &v.Members[i]
		if err := p.upstreamKey(u, m, ptr+"/"+canon.EscapePointer(m.Key)); err != nil {
			return nil, err
		}
	}
	if err := p.checkSides(u, v, ptr); err != nil {
		return nil, err
	}
	if u.HasRollout() {
		u.Stdio, u.Env, u.HTTP = u.Green.Stdio, u.Green.Env, u.Green.HTTP
	}
	switch {
	case u.Name == "":
		return nil, p.errAt(ptr, "", "an upstreams entry needs a name")
	case (u.Stdio == nil) == (u.HTTP == nil):
		return nil, p.errAt(ptr, "", "upstream %q needs exactly one of stdio (a command list) or http ({url, headers}), or blue and green sides", u.Name)
	case u.HTTP != nil && len(u.Env) > 0:
		return nil, p.keyErrAt(ptr+"/env", "", "upstream %q: env is for stdio upstreams (an http upstream takes headers from variables)", u.Name)
	}
	return u, nil
}

func (p *cfgParser) upstreamKey(u *UpstreamConfig, m *canon.Member, mp string) error {
	var err error
	switch m.Key {
	case "name":
		u.Name, err = p.scalarString(&m.Value, mp, "")
	case "stdio":
		u.Stdio, err = p.stringList(&m.Value, mp, "")
		if err == nil && (len(u.Stdio) == 0 || u.Stdio[0] == "") {
			err = p.errAt(mp, "", "stdio needs at least the program")
		}
	case "env":
		u.Env, err = p.envNames(&m.Value, mp, "")
	case "http":
		u.HTTP, err = p.upstreamHTTP(&m.Value, mp)
	case "prefix":
		u.Prefix, err = p.scalarString(&m.Value, mp, "")
	case "tools":
		err = p.upstreamTools(u, &m.Value, mp)
	case "facades":
		u.Facades, err = p.upstreamFacades(&m.Value, mp)
	case "refresh":
		u.Refresh, err = p.duration(&m.Value, mp, "")
	case "timeout":
		u.Timeout, err = p.duration(&m.Value, mp, "")
	case "startTimeout":
		u.StartTimeout, err = p.duration(&m.Value, mp, "")
	case "blue":
		u.Blue, err = p.upstreamSide(&m.Value, mp)
	case "green":
		u.Green, err = p.upstreamSide(&m.Value, mp)
	case "rollout":
		u.Rollout, err = p.rollout(&m.Value, mp)
	default:
		err = p.keyErrAt(mp, "", "%s", unknownKey(m.Key, upstreamKeys...))
	}
	return err
}

func (p *cfgParser) upstreamHTTP(v *canon.Value, ptr string) (*UpstreamHTTP, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "http must be a mapping {url, headers}, got %s", v.Kind)
	}
	h := &UpstreamHTTP{}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "url":
			h.URL, err = p.scalarString(&m.Value, mp, "")
			if err == nil && !strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://") {
				err = p.errAt(mp, "", "url must be http:// or https://")
			}
		case "headers":
			h.Headers, err = p.envHeaders(&m.Value, mp)
		default:
			err = p.keyErrAt(mp, "", "%s", unknownKey(m.Key, upstreamHTTPKeys...))
		}
		if err != nil {
			return nil, err
		}
	}
	if h.URL == "" {
		return nil, p.errAt(ptr, "", "http needs a url")
	}
	return h, nil
}

// envHeaders reads headers: {Name: {env: VAR}}. A value written inline is
// refused: a secret in the config would be committed with it.
func (p *cfgParser) envHeaders(v *canon.Value, ptr string) (map[string]string, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "headers must be a mapping of header name to {env: VARIABLE}")
	}
	out := map[string]string{}
	for i := range v.Members {
		m := &v.Members[i]
		hp := ptr + "/" + canon.EscapePointer(m.Key)
		if err := CheckHeader(m.Key, ""); err != nil {
			return nil, p.keyErrAt(hp, "", "header %q: %v", m.Key, err)
		}
		env := m.Value.Get("env")
		if m.Value.Kind != canon.Object || len(m.Value.Members) != 1 || env == nil || env.Kind != canon.String || env.Str == "" {
			return nil, p.errAt(hp, "", "header %q: want {env: VARIABLE}; a value is never written in the config (it would be committed with it)", m.Key)
		}
		out[m.Key] = env.Str
	}
	return out, nil
}

func (p *cfgParser) upstreamTools(u *UpstreamConfig, v *canon.Value, ptr string) error {
	if v.Kind != canon.Object {
		return p.errAt(ptr, "", "tools must be a mapping {include, exclude}, got %s", v.Kind)
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "include":
			u.Include, err = p.stringList(&m.Value, mp, "")
		case "exclude":
			u.Exclude, err = p.stringList(&m.Value, mp, "")
		default:
			err = p.keyErrAt(mp, "", "%s", unknownKey(m.Key, upstreamToolsKeys...))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *cfgParser) upstreamFacades(v *canon.Value, ptr string) (facade.File, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "facades must be a mapping of upstream tool name to facade block, got %s", v.Kind)
	}
	f := facade.File{}
	for i := range v.Members {
		m := &v.Members[i]
		b, err := p.facade(&m.Value, ptr+"/"+canon.EscapePointer(m.Key), m.Key)
		if err != nil {
			return nil, err
		}
		if b != nil {
			f[m.Key] = *b
		}
	}
	return f, nil
}
