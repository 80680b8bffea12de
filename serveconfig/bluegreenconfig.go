package serveconfig

import (
	"slices"
	"time"

	"github.com/mcpctl/mcpctl/canon"
)

// UpstreamConn is one side of a blue/green upstream (docs/serve.md#bluegreen):
// a connection block as an upstreams entry has it, exactly one of Stdio
// (with its Env allowlist) and HTTP.
type UpstreamConn struct {
	Stdio []string
	Env   []string
	HTTP  *UpstreamHTTP
}

// HasRollout reports whether the upstream has blue: and green: sides.
func (u *UpstreamConfig) HasRollout() bool { return u.Blue != nil && u.Green != nil }

// OnSide returns the upstream as served on side d: a copy whose
// connection (Stdio, Env, HTTP) is that side's, without sides; u itself
// when it has no sides.
func (u *UpstreamConfig) OnSide(d Side) *UpstreamConfig {
	if !u.HasRollout() {
		return u
	}
	c := u.Green
	if d == SideBlue {
		c = u.Blue
	}
	v := *u
	v.Stdio, v.Env, v.HTTP = c.Stdio, c.Env, c.HTTP
	v.Blue, v.Green, v.Rollout = nil, nil, nil
	return &v
}

// HasRollout reports whether an upstream of cfg has blue: and green:
// sides.
func (cfg *Config) HasRollout() bool {
	return slices.ContainsFunc(cfg.Upstreams, (*UpstreamConfig).HasRollout)
}

// OnSide returns cfg with every blue/green upstream on side d (a shallow
// copy; cfg itself when it has no rollout). Green's is the config the
// live generation is built from, blue's the blue generation's.
func (cfg *Config) OnSide(d Side) *Config {
	if !cfg.HasRollout() {
		return cfg
	}
	c := *cfg
	c.Upstreams = make([]*UpstreamConfig, len(cfg.Upstreams))
	for i, u := range cfg.Upstreams {
		c.Upstreams[i] = u.OnSide(d)
	}
	return &c
}

// Rollout returns the rollout of the first blue/green upstream of cfg
// (the server runs one rollout at a time), and false when there is none.
func (cfg *Config) Rollout() (Rollout, bool) {
	for _, u := range cfg.Upstreams {
		if u.HasRollout() {
			r := Rollout{NewSessions: SideGreen, RetireBlueAfter: DefaultRetireBlueAfter}
			if u.Rollout != nil {
				r = *u.Rollout
			}
			return r, true
		}
	}
	return Rollout{}, false
}

// upstreamSide reads blue: or green: of an upstream.
func (p *cfgParser) upstreamSide(v *canon.Value, ptr string) (*UpstreamConn, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "a blue or green side must be a mapping {stdio, env} or {http}, got %s", v.Kind)
	}
	c := &UpstreamConn{}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "stdio":
			c.Stdio, err = p.stringList(&m.Value, mp, "")
			if err == nil && (len(c.Stdio) == 0 || c.Stdio[0] == "") {
				err = p.errAt(mp, "", "stdio needs at least the program")
			}
		case "env":
			c.Env, err = p.envNames(&m.Value, mp, "")
		case "http":
			c.HTTP, err = p.upstreamHTTP(&m.Value, mp)
		default:
			err = p.keyErrAt(mp, "", "%s", unknownKey(m.Key, upstreamSideKeys...))
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case (c.Stdio == nil) == (c.HTTP == nil):
		return nil, p.errAt(ptr, "", "a side needs exactly one of stdio (a command list) or http ({url, headers})")
	case c.HTTP != nil && len(c.Env) > 0:
		return nil, p.keyErrAt(ptr+"/env", "", "env is for a stdio side (an http side takes headers from variables)")
	}
	return c, nil
}

// rollout reads rollout: {newSessions, retireBlueAfter}.
func (p *cfgParser) rollout(v *canon.Value, ptr string) (*Rollout, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "rollout must be a mapping {newSessions, retireBlueAfter}, got %s", v.Kind)
	}
	r := &Rollout{NewSessions: SideGreen, RetireBlueAfter: DefaultRetireBlueAfter}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "newSessions":
			r.NewSessions, err = p.side(&m.Value, mp)
		case "retireBlueAfter":
			r.RetireBlueAfter, err = p.duration(&m.Value, mp, "")
		default:
			err = p.keyErrAt(mp, "", "%s", unknownKey(m.Key, rolloutKeys...))
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// side reads blue or green.
func (p *cfgParser) side(v *canon.Value, ptr string) (Side, error) {
	s, err := p.scalarString(v, ptr, "")
	if err != nil {
		return SideNeither, err
	}
	for _, d := range []Side{SideBlue, SideGreen} {
		if s == d.String() {
			return d, nil
		}
	}
	return SideNeither, p.errAt(ptr, "", "newSessions: %s", unknownWord("side", s, []string{"blue", "green"}))
}

// checkSides checks an upstream's blue/green keys (the entry at ptr): both
// sides or none; with sides, no connection of its own; a rollout only
// with sides.
func (p *cfgParser) checkSides(u *UpstreamConfig, v *canon.Value, ptr string) error {
	if u.Blue == nil && u.Green == nil {
		if u.Rollout != nil {
			return p.keyErrAt(ptr+"/rollout", "", "upstream %q: rollout needs blue and green sides", u.Name)
		}
		return nil
	}
	if u.Blue == nil || u.Green == nil {
		have, miss := "blue", "green"
		if u.Blue == nil {
			have, miss = "green", "blue"
		}
		return p.keyErrAt(ptr+"/"+have, "", "upstream %q has a %s side but no %s side: a blue/green upstream needs both", u.Name, have, miss)
	}
	for _, k := range []string{"stdio", "http", "env"} {
		if v.Has(k) {
			return p.keyErrAt(ptr+"/"+k, "", "upstream %q has blue and green sides: its %s goes in each side, not beside them", u.Name, k)
		}
	}
	return nil
}

// Rollout is an upstream's rollout block: rollout: {newSessions,
// retireBlueAfter}.
type Rollout struct {
	// NewSessions is the side sessions that initialize get: SideGreen (the
	// default) or SideBlue.
	NewSessions Side
	// RetireBlueAfter is how long after the rollout starts blue is
	// retired; 0 means DefaultRetireBlueAfter.
	RetireBlueAfter time.Duration
}

// DefaultRetireBlueAfter is the default rollout.retireBlueAfter.
const DefaultRetireBlueAfter = time.Hour
