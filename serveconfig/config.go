package serveconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/parallel"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/toolset"
)

// DeprecatedMetaKey is the _meta key a deprecated tool is served with
// (docs/diff.md#levels-and-rules lifecycle): {"since": …, "sunset": date, "replacement": name}.
const DeprecatedMetaKey = "io.mcpctl/deprecated"

// Config is a parsed serve config (docs/serve.md#config), YAML or JSON:
//
//	server: {name: docs, version: 1.4.0}
//	tools: [ {name, title, description, inputSchema, …, handler, facade, deprecated} ]
//	gate: {allow: [{rule, tool, path, reason, expires}]}
//	record: {redact: [NAME or /JSON/Pointer, …]}
//
// Every tool entry keeps the member order of the file; {$file: PATH}
// anywhere inside a tool is replaced by the JSON or YAML file at PATH,
// relative to the folder of the file that names it.
type Config struct {
	// Source is the config's path as given.
	Source string
	Server ServerInfo
	// Tools are in file order.
	Tools []*ToolConfig
	Gate  GateConfig
	// Record is the record block (what serve --record redacts).
	Record RecordConfig
	// Upstreams are the servers fronted as a gateway, in file order
	// (docs/serve.md#gateway).
	Upstreams []*UpstreamConfig
	// Files lists the config and every file it included, as read.
	Files []string
	// Digest is the hex SHA-256 of every file read (paths and bytes, in
	// order): equal digests mean identical inputs.
	Digest string
	// Warnings are located notes about a config that still loads (a
	// deprecated key), "file:line:col: message".
	Warnings []string
}

// ServerInfo is the implementation info served in initialize.
type ServerInfo struct {
	Name         string
	Version      string
	Title        string
	Instructions string
}

// ToolConfig is one tool entry: the MCP tool object that is served, and the
// serve-only members beside it.
type ToolConfig struct {
	Name  string
	Index int
	// Value is the served tool object: the entry without handler, facade
	// and deprecated, includes resolved, a deprecation added to _meta and
	// description. Raw is its compact JSON in source member order.
	Value canon.Value
	Raw   []byte
	// Handler is nil when the entry has none (allowed for canon, lint and
	// diff; refused by serve).
	Handler    *HandlerConfig
	Facade     *facade.Block
	Deprecated *Deprecation
	// Pos is where the entry starts (for an upstream's tool: its upstreams
	// entry).
	Pos Pos
	// Upstream names the upstream an upstream's tool comes from ("" for a
	// tool of the config).
	Upstream string
	// places says where the config's values were written, by JSON Pointer
	// from its root (shared by all tools); entry is the pointer of this
	// tool's entry ("/tools/3").
	places *places
	entry  string
}

// PosOf returns where the value at ptr (a JSON Pointer inside the tool
// entry, e.g. "/inputSchema/properties/q") was written, falling back to the
// nearest enclosing value.
func (t *ToolConfig) PosOf(ptr string) Pos {
	for {
		if p, ok := t.places.value(t.entry + ptr); ok {
			return p
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return t.Pos
		}
		ptr = ptr[:i]
	}
}

// Deprecation marks a tool deprecated (docs/serve.md#active-conversations-pinning): it stays listed until
// Sunset.
type Deprecation struct {
	Since       string `json:"since,omitempty"`
	Sunset      string `json:"sunset,omitempty"`
	Replacement string `json:"replacement,omitempty"`
}

// HandlerConfig says how a tool call is executed (docs/serve.md#transports-admin-security); exactly one
// of Exec, HTTP and Static is set.
type HandlerConfig struct {
	Exec   *ExecConfig
	HTTP   *HTTPConfig
	Static *StaticConfig
	// Upstream is set (instead of the others) on an upstream's tool: its
	// calls are forwarded (docs/serve.md#gateway).
	Upstream *UpstreamRef
	Pos      Pos
}

// UpstreamRef is the handler of an upstream tool: forward to the tool
// named Tool of the upstream named Upstream. Package serve builds it for
// each tool an upstream lists; no config key sets it.
type UpstreamRef struct {
	Upstream string
	Tool     string
	// Conn is the connection's key and State what the upstream's current
	// list is while quarantined (a tool is shared between generations
	// only while both are the same).
	Conn, State string
	// Translator translates a quarantined upstream's calls: serve's own
	// type, opaque to the config format (nil: none).
	Translator any
}

// DefaultToolConcurrency is how many calls of one exec tool may run at
// once (the exec handler's concurrency key).
const DefaultToolConcurrency = 8

// ExecConfig runs a command without a shell: the call's arguments as JSON on
// standard input, standard output as the result.
type ExecConfig struct {
	// Command is argv; a relative program path with a slash is resolved
	// against the config's folder, a bare name through PATH.
	Command []string
	// Timeout bounds one call (default 30s).
	Timeout time.Duration
	// MaxOutput caps standard output in bytes (default 1 MiB); more is an
	// error result.
	MaxOutput int64
	// Env names the variables copied from the server's environment (PATH is
	// always copied); nothing else is passed.
	Env []string
	// Dir is the working folder (default: the config's folder).
	Dir string
	// Concurrency bounds how many calls of the tool run at once (default
	// DefaultToolConcurrency); more wait for a slot, within the server's
	// bounds (--exec-concurrency, --exec-queue) and the tool's Timeout.
	Concurrency int
}

// HTTPConfig posts the call's arguments as JSON to URL.
type HTTPConfig struct {
	URL     string
	Timeout time.Duration
	// Headers are sent with every request; ${NAME} in a value is replaced
	// by the environment variable NAME when the generation is built (secret
	// values never appear in the config).
	Headers map[string]string
	// MaxResponse caps the response body in bytes (default 1 MiB).
	MaxResponse int64
}

// StaticConfig returns fixed content: Text, or JSON (served as text and, for
// a tool with an outputSchema, as structuredContent).
type StaticConfig struct {
	Text string
	JSON *canon.Value
}

// GateConfig holds the publisher's explicit permissions (docs/serve.md#generations-and-the-reload-pipeline step 3).
type GateConfig struct {
	Allow []AllowEntry
	// MinNotice is how long before its sunset a deprecation must have
	// been published for a removal at the sunset to be safe (gate.minNotice:
	// a Go duration or N days, "7d"); nil means DefaultMinNotice.
	MinNotice *time.Duration
	// Baseline is gate.baseline resolved against the config's folder: a
	// contract lockfile (lockfile package) the first candidate is gated
	// against; "" when absent.
	Baseline string
	// Compatibility is gate.compatibility (diff.Compatibility; "" is
	// backward).
	Compatibility diff.Compatibility
	// Transitive is gate.transitive: how many of the state's last
	// published contracts a candidate is checked against (0 or 1: the
	// live one only).
	Transitive int
	// QuietPeriod is gate.quietPeriod; nil means DefaultQuietPeriod.
	QuietPeriod *time.Duration
	// Descriptions is gate.descriptions: DescriptionsNotice (the
	// default, "") or DescriptionsHold.
	Descriptions string
	// Upstream is gate.upstream: UpstreamRefuse (the default, "") or
	// UpstreamAutoFacade.
	Upstream string
}

// The values of gate.descriptions and gate.upstream (docs/serve.md#gateway).
const (
	DescriptionsNotice = "notice"
	DescriptionsHold   = "hold"
	UpstreamRefuse     = "refuse"
	UpstreamAutoFacade = "auto-facade"
)

// DefaultQuietPeriod is the default gate.quietPeriod: how long a facade
// rule or deprecated tool must have gone unused before its removal counts
// as safe.
const DefaultQuietPeriod = diff.DefaultQuietPeriod

// DefaultMinNotice is the default gate.minNotice: how long before its
// sunset a deprecation must be published for a removal at the sunset to
// count as announced.
const DefaultMinNotice = 7 * 24 * time.Hour

// EffectiveQuietPeriod is gate.quietPeriod or its default.
func (g GateConfig) EffectiveQuietPeriod() time.Duration {
	if g.QuietPeriod == nil {
		return DefaultQuietPeriod
	}
	return *g.QuietPeriod
}

// EffectiveMinNotice is gate.minNotice or its default.
func (g GateConfig) EffectiveMinNotice() time.Duration {
	if g.MinNotice == nil {
		return DefaultMinNotice
	}
	return *g.MinNotice
}

// AllowEntry lets findings through the gate: those of Rule (every rule when
// empty) on Tool (every tool when empty) at Path or below it (everywhere
// when empty), matched as .mcpctl.yaml ignores match (diff.Ignore.Matches),
// before Expires (zero: no end), the first instant no longer covered.
type AllowEntry struct {
	Rule    string    `json:"rule,omitempty"`
	Tool    string    `json:"tool,omitempty"`
	Path    string    `json:"path,omitempty"`
	Expires time.Time `json:"expires,omitzero"`
	Reason  string    `json:"reason"`
	Pos     Pos       `json:"-"`
}

// Defaults for handlers.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 1 << 20
)

// Describe names what e allows: "rule R, tool T, path P" (the parts set).
func (e AllowEntry) Describe() string {
	var parts []string
	if e.Rule != "" {
		parts = append(parts, "rule "+e.Rule)
	}
	if e.Tool != "" {
		parts = append(parts, "tool "+e.Tool)
	}
	if e.Path != "" {
		parts = append(parts, "path "+e.Path)
	}
	return strings.Join(parts, ", ")
}

// IsConfigName reports whether a file name looks like a serve config by its
// extension (.yaml or .yml).
func IsConfigName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// LoadConfig reads and parses the serve config at path, resolving includes
// from disk. Errors are *toolset.InputError (wrapping toolset.ErrInput),
// located by file, line and column, tool and JSON Pointer.
//
// The config and its includes are read as safefile reads them: regular
// files only, at most safefile.DefaultMaxSize bytes each, within a time
// limit; an include must lie in the config's folder tree once symlinks are
// resolved (an absolute path, ../ or a symlink out of it is refused, so no
// file outside is served in tools/list).
func LoadConfig(path string) (*Config, error) {
	return LoadConfigLimits(path, safefile.Limits{})
}

// LoadConfigLimits is LoadConfig with limits on every file read.
func LoadConfigLimits(path string, lim safefile.Limits) (*Config, error) {
	data, err := safefile.Read(path, lim)
	if err != nil {
		return nil, &toolset.InputError{Source: path, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", safefile.UnwrapPath(err)), Err: err}
	}
	read := safefile.Under(filepath.Dir(path), lim)
	return ParseConfig(path, data, func(p string) ([]byte, error) {
		b, err := read(p)
		return b, safefile.UnwrapPath(err)
	})
}

// ParseConfig parses config bytes named source; readFile reads includes by
// path (joined to the folder of the including file). It reads each path at
// most once, possibly from several goroutines at once (tool entries are
// converted on every core).
func ParseConfig(source string, data []byte, readFile func(path string) ([]byte, error)) (*Config, error) {
	return parseConfig(source, data, readFile, true)
}

// parseConfig is ParseConfig; sideBySide says whether the entries of the
// tools list are converted on every core (the result is the same; see
// toolItems).
func parseConfig(source string, data []byte, readFile func(path string) ([]byte, error), sideBySide bool) (*Config, error) {
	doc, err := parseConfigYAML(data)
	if err != nil {
		return nil, toInputError(syntaxError(source, data, err), "")
	}
	if readFile == nil {
		readFile = func(string) ([]byte, error) {
			return nil, errors.New("$file includes are only resolved for config files on disk")
		}
	}
	reads := &onceReader{read: readFile, m: map[string]*readResult{}}
	conv := newConverter(doc, reads.file, sideBySide)
	root, err := conv.value(doc, source, "")
	if errors.Is(err, errSideBySide) {
		conv = newConverter(doc, reads.file, false)
		root, err = conv.value(doc, source, "")
	}
	if err != nil {
		return nil, toInputError(err, "")
	}
	read := append([]includedFile{{Path: source, Data: data}}, conv.files...)
	cfg := &Config{Source: source, Digest: inputsDigest(read)}
	for _, f := range read {
		cfg.Files = append(cfg.Files, f.Path)
	}
	p := &cfgParser{source: source, places: conv.places}
	if err := p.root(cfg, &root); err != nil {
		return nil, err
	}
	cfg.Warnings = p.warnings
	return cfg, nil
}

// inputsDigest is Config.Digest of the files a config load read.
func inputsDigest(files []includedFile) string {
	d := sha256.New()
	for _, f := range files {
		fmt.Fprintf(d, "%s\x00%d\x00", f.Path, len(f.Data))
		d.Write(f.Data)
	}
	return hex.EncodeToString(d.Sum(nil))
}

// ChangedOnDisk reports whether cfg's inputs (the config and every file it
// included) differ now from when cfg was read: a file's bytes changed, or
// it can no longer be read.
func (cfg *Config) ChangedOnDisk(lim safefile.Limits) bool {
	files := make([]includedFile, 0, len(cfg.Files))
	for _, p := range cfg.Files {
		data, err := safefile.Read(p, lim)
		if err != nil {
			return true
		}
		files = append(files, includedFile{Path: p, Data: data})
	}
	return inputsDigest(files) != cfg.Digest
}

// toInputError turns a conversion error into a located *toolset.InputError.
func toInputError(err error, tool string) error {
	var ce *convError
	if errors.As(err, &ce) {
		return &toolset.InputError{Source: ce.Pos.File, Offset: -1, Line: ce.Pos.Line, Col: ce.Pos.Col, Tool: tool, Pointer: ce.Pointer, Msg: ce.Msg}
	}
	var ie *toolset.InputError
	if errors.As(err, &ie) {
		return err
	}
	return &toolset.InputError{Offset: -1, Tool: tool, Msg: err.Error(), Err: err}
}

type cfgParser struct {
	source string
	// warnings collects Config.Warnings.
	warnings []string
	// places says where the values and member keys of the document were
	// written, by pointer from its root.
	places *places
}

// errAt returns a located error for the value at ptr (pointer from the
// document root).
func (p *cfgParser) errAt(ptr, tool, format string, args ...any) error {
	pos := p.posOf(ptr)
	return &toolset.InputError{Source: pos.File, Offset: -1, Line: pos.Line, Col: pos.Col, Tool: tool, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// keyErrAt is errAt located at the key of the member at ptr (where an
// unknown or misspelled key was written), or at its value when the key's
// place is unknown.
func (p *cfgParser) keyErrAt(ptr, tool, format string, args ...any) error {
	pos, ok := p.places.memberKey(ptr)
	if !ok {
		pos = p.posOf(ptr)
	}
	return &toolset.InputError{Source: pos.File, Offset: -1, Line: pos.Line, Col: pos.Col, Tool: tool, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}

// unknownKey words a member a mapping does not accept:
//
//	unknown key "X" (want a, b or c); did you mean "b"?
//
// The suggestion is the known key nearest to key, when within edit
// distance 2 (see nearest).
func unknownKey(key string, known ...string) string {
	return unknownWord("key", key, known)
}

// unknownWord is unknownKey for what (a key, a handler kind, …).
func unknownWord(what, word string, known []string) string {
	msg := fmt.Sprintf("unknown %s %q (want %s)", what, word, orList(known))
	if s, ok := nearest(word, known); ok {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// orList writes "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// maxSuggestDistance bounds the edit distance of a "did you mean"
// suggestion.
const maxSuggestDistance = 2

// nearest returns the word of known closest to s by edit distance
// (optimal string alignment: insertions, deletions, substitutions and
// transpositions of adjacent bytes cost 1), if at most maxSuggestDistance
// and less than len(s) (a one-letter key is not "near" every two-letter
// one). Ties go to the earlier word of known.
func nearest(s string, known []string) (string, bool) {
	best, bestD := "", maxSuggestDistance+1
	for _, k := range known {
		if d := callcheck.EditDistance(s, k); d < bestD && d < len(s) {
			best, bestD = k, d
		}
	}
	return best, best != ""
}

func (p *cfgParser) posOf(ptr string) Pos {
	for {
		if pos, ok := p.places.value(ptr); ok {
			return pos
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return Pos{File: p.source}
		}
		ptr = ptr[:i]
	}
}

func (p *cfgParser) root(cfg *Config, root *canon.Value) error {
	if root.Kind != canon.Object {
		return p.errAt("", "", "a serve config is a mapping with server, tools and gate; got %s", root.Kind)
	}
	for i := range root.Members {
		m := &root.Members[i]
		ptr := "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "server":
			err = p.server(&cfg.Server, &m.Value, ptr)
		case "tools":
			err = p.tools(cfg, &m.Value, ptr)
		case "gate":
			err = p.gate(&cfg.Gate, &m.Value, ptr)
		case "record":
			err = p.record(&cfg.Record, &m.Value, ptr)
		case "upstreams":
			err = p.upstreams(cfg, &m.Value, ptr)
		default:
			err = p.keyErrAt(ptr, "", "%s", unknownKey(m.Key, rootKeys...))
		}
		if err != nil {
			return err
		}
	}
	if !root.Has("tools") && !root.Has("upstreams") {
		return p.errAt("", "", `a serve config needs a "tools" list or "upstreams"`)
	}
	return nil
}

func (p *cfgParser) server(s *ServerInfo, v *canon.Value, ptr string) error {
	if v.Kind != canon.Object {
		return p.errAt(ptr, "", "server must be a mapping {name, version}, got %s", v.Kind)
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var dst *string
		switch m.Key {
		case "name":
			dst = &s.Name
		case "version":
			dst = &s.Version
		case "title":
			dst = &s.Title
		case "instructions":
			dst = &s.Instructions
		default:
			return p.keyErrAt(mp, "", "%s", unknownKey(m.Key, serverKeys...))
		}
		str, err := p.scalarString(&m.Value, mp, "")
		if err != nil {
			return err
		}
		*dst = str
	}
	return nil
}

// scalarString accepts a string, or a number written unquoted (version: 1.4).
func (p *cfgParser) scalarString(v *canon.Value, ptr, tool string) (string, error) {
	switch v.Kind {
	case canon.String, canon.Number:
		return v.Str, nil
	}
	return "", p.errAt(ptr, tool, "want a string, got %s", v.Kind)
}

func (p *cfgParser) tools(cfg *Config, v *canon.Value, ptr string) error {
	if v.Kind != canon.Array {
		return p.errAt(ptr, "", "tools must be a list, got %s", v.Kind)
	}
	// Entries are read on every core (p.tool only reads p); the error
	// reported is the first entry's.
	tools := make([]*ToolConfig, len(v.Items))
	errs := make([]error, len(v.Items))
	parallel.Each(len(v.Items), func(i int) {
		tools[i], errs[i] = p.tool(&v.Items[i], ptr+"/"+strconv.Itoa(i), i)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	cfg.Tools = append(cfg.Tools, tools...)
	return nil
}

func (p *cfgParser) tool(v *canon.Value, ptr string, index int) (*ToolConfig, error) {
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, "", "a tool entry must be a mapping, got %s", v.Kind)
	}
	name := v.Get("name")
	for i := range v.Members {
		if k := v.Members[i].Key; !slices.Contains(toolKeys, k) {
			tool := ""
			if name != nil && name.Kind == canon.String {
				tool = name.Str
			}
			return nil, p.keyErrAt(ptr+"/"+canon.EscapePointer(k), tool, "%s", unknownKey(k, toolKeys...))
		}
	}
	if name == nil {
		return nil, p.errAt(ptr, "", `tool entry has no "name"`)
	}
	if name.Kind != canon.String {
		return nil, p.errAt(ptr+"/name", "", `tool "name" must be a string, got %s`, name.Kind)
	}
	// The tool looks its places up in the config's one map (copying them
	// per tool by scanning it made a 10,000-tool config take minutes).
	t := &ToolConfig{Name: name.Str, Index: index, Pos: p.posOf(ptr), places: p.places, entry: ptr}
	served := canon.Value{Kind: canon.Object}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "handler":
			t.Handler, err = p.handler(&m.Value, mp, t.Name)
		case "facade":
			t.Facade, err = p.facade(&m.Value, mp, t.Name)
		case "deprecated":
			t.Deprecated, err = p.deprecated(&m.Value, mp, t.Name)
		default:
			served.Members = append(served.Members, memberClone(m))
		}
		if err != nil {
			return nil, err
		}
	}
	if t.Deprecated != nil {
		markDeprecated(&served, t.Deprecated)
	}
	t.Value = served
	t.Raw = canon.AppendOrdered(nil, &served)
	return t, nil
}

// Clone of a member (canon.Member has no method).
func memberClone(m *canon.Member) canon.Member {
	return canon.Member{Key: m.Key, Value: m.Value.Clone()}
}

// markDeprecated adds the deprecation to _meta and, unless it already says
// so, to the description.
func markDeprecated(tool *canon.Value, d *Deprecation) {
	dep := canon.Value{Kind: canon.Object}
	if d.Since != "" {
		dep.Members = append(dep.Members, canon.Member{Key: "since", Value: canon.StringValue(d.Since)})
	}
	if d.Sunset != "" {
		dep.Members = append(dep.Members, canon.Member{Key: "sunset", Value: canon.StringValue(d.Sunset)})
	}
	if d.Replacement != "" {
		dep.Members = append(dep.Members, canon.Member{Key: "replacement", Value: canon.StringValue(d.Replacement)})
	}
	meta := tool.Get("_meta")
	if meta == nil || meta.Kind != canon.Object {
		tool.Set("_meta", canon.ObjectValue(canon.Member{Key: DeprecatedMetaKey, Value: dep}))
	} else {
		meta.Set(DeprecatedMetaKey, dep)
	}
	desc := tool.Get("description")
	if desc != nil && desc.Kind == canon.String && strings.Contains(strings.ToUpper(desc.Str), "DEPRECATED") {
		return
	}
	note := "DEPRECATED"
	if d.Sunset != "" {
		note += " (sunset " + d.Sunset + ")"
	}
	if d.Replacement != "" {
		note += "; use " + d.Replacement + " instead"
	}
	note += "."
	if desc != nil && desc.Kind == canon.String {
		desc.Str = note + " " + desc.Str
		return
	}
	tool.Set("description", canon.StringValue(note))
}

func (p *cfgParser) deprecated(v *canon.Value, ptr, tool string) (*Deprecation, error) {
	if v.Kind == canon.Null {
		return nil, nil
	}
	if v.Kind != canon.Object {
		return nil, p.errAt(ptr, tool, "deprecated must be null or a mapping {since, sunset, replacement}, got %s", v.Kind)
	}
	d := &Deprecation{}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		s, err := p.scalarString(&m.Value, mp, tool)
		if err != nil {
			return nil, err
		}
		switch m.Key {
		case "since":
			d.Since = s
		case "sunset":
			if _, err := diff.ParseExpiry(s, true); err != nil {
				return nil, p.errAt(mp, tool, "sunset: %v", err)
			}
			d.Sunset = s
		case "replacement":
			d.Replacement = s
		default:
			return nil, p.keyErrAt(mp, tool, "%s", unknownKey(m.Key, deprecatedKeys...))
		}
	}
	return d, nil
}

// facade reads a tool's facade block with the facade-file loader
// (facade.ParseBlock), so a block is checked and its problems worded as in
// a --facades file. Includes are already resolved: the block is rebuilt as
// YAML nodes carrying the places recorded for it, and the place of a
// problem is mapped back to its file and JSON Pointer.
func (p *cfgParser) facade(v *canon.Value, ptr, tool string) (*facade.Block, error) {
	if v.Kind == canon.Null {
		return nil, nil
	}
	at := map[[2]int]nodePlace{}
	n := p.yamlNode(v, ptr, at)
	pos := p.posOf(ptr)
	b, err := facade.ParseBlock(pos.File, n, tool)
	if err != nil {
		var fe *facade.FileError
		if !errors.As(err, &fe) {
			return nil, p.errAt(ptr, tool, "%v", err)
		}
		np, ok := at[[2]int{fe.Line, fe.Col}]
		if !ok {
			np = nodePlace{ptr: ptr, pos: pos}
		}
		return nil, &toolset.InputError{Source: np.pos.File, Offset: -1, Line: np.pos.Line, Col: np.pos.Col, Tool: tool, Pointer: np.ptr, Msg: fe.Msg, Err: err}
	}
	return &b, nil
}

// nodePlace is where a node built by yamlNode came from: the JSON Pointer
// of its value (or, for a key, of its member) and its place.
type nodePlace struct {
	ptr string
	pos Pos
}

// yamlNode rebuilds v, found at ptr, as yaml.v3 nodes, each carrying the
// line and column its value (or key) was written at, so that code reading
// YAML nodes locates problems in the config. Strings and keys are tagged
// !!str; numbers, booleans and null are left untagged plain scalars, so
// that decoding resolves them as it would in a YAML file. at receives, per
// line and column, the first node built there (places in two included
// files may coincide; the first is kept).
func (p *cfgParser) yamlNode(v *canon.Value, ptr string, at map[[2]int]nodePlace) *yaml.Node {
	pos := p.posOf(ptr)
	place := func(n *yaml.Node, ptr string, pos Pos) *yaml.Node {
		n.Line, n.Column = pos.Line, pos.Col
		if _, dup := at[[2]int{pos.Line, pos.Col}]; !dup {
			at[[2]int{pos.Line, pos.Col}] = nodePlace{ptr: ptr, pos: pos}
		}
		return n
	}
	switch v.Kind {
	case canon.Object:
		n := place(&yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, ptr, pos)
		for i := range v.Members {
			m := &v.Members[i]
			mp := ptr + "/" + canon.EscapePointer(m.Key)
			kpos, ok := p.places.memberKey(mp)
			if !ok {
				kpos = p.posOf(mp)
			}
			k := place(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m.Key}, mp, kpos)
			n.Content = append(n.Content, k, p.yamlNode(&m.Value, mp, at))
		}
		return n
	case canon.Array:
		n := place(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}, ptr, pos)
		for i := range v.Items {
			n.Content = append(n.Content, p.yamlNode(&v.Items[i], ptr+"/"+strconv.Itoa(i), at))
		}
		return n
	case canon.String:
		return place(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v.Str}, ptr, pos)
	case canon.Number:
		return place(&yaml.Node{Kind: yaml.ScalarNode, Value: v.Str}, ptr, pos)
	case canon.Bool:
		return place(&yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatBool(v.Bool)}, ptr, pos)
	}
	return place(&yaml.Node{Kind: yaml.ScalarNode, Value: "null"}, ptr, pos)
}

func (p *cfgParser) handler(v *canon.Value, ptr, tool string) (*HandlerConfig, error) {
	if v.Kind != canon.Object || len(v.Members) != 1 {
		return nil, p.errAt(ptr, tool, "handler must be a mapping with exactly one of exec, http or static")
	}
	h := &HandlerConfig{Pos: p.posOf(ptr)}
	m := &v.Members[0]
	mp := ptr + "/" + canon.EscapePointer(m.Key)
	if m.Value.Kind != canon.Object {
		return nil, p.errAt(mp, tool, "handler %s must be a mapping, got %s", m.Key, m.Value.Kind)
	}
	var err error
	switch m.Key {
	case "exec":
		h.Exec, err = p.execHandler(&m.Value, mp, tool)
	case "http":
		h.HTTP, err = p.httpHandler(&m.Value, mp, tool)
	case "static":
		h.Static, err = p.staticHandler(&m.Value, mp, tool)
	default:
		err = p.keyErrAt(mp, tool, "%s", unknownWord("handler", m.Key, handlerKinds))
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (p *cfgParser) execHandler(v *canon.Value, ptr, tool string) (*ExecConfig, error) {
	e := &ExecConfig{Timeout: DefaultTimeout, MaxOutput: DefaultMaxOutput}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "command":
			e.Command, err = p.stringList(&m.Value, mp, tool)
			if err == nil && (len(e.Command) == 0 || e.Command[0] == "") {
				err = p.errAt(mp, tool, "command needs at least the program")
			}
		case "timeout":
			e.Timeout, err = p.duration(&m.Value, mp, tool)
		case "maxOutput":
			e.MaxOutput, err = p.size(&m.Value, mp, tool)
		case "env":
			e.Env, err = p.envNames(&m.Value, mp, tool)
		case "dir":
			e.Dir, err = p.scalarString(&m.Value, mp, tool)
		case "concurrency":
			e.Concurrency, err = p.count(&m.Value, mp, tool)
		default:
			err = p.keyErrAt(mp, tool, "%s", unknownKey(m.Key, execKeys...))
		}
		if err != nil {
			return nil, err
		}
	}
	if e.Command == nil {
		return nil, p.errAt(ptr, tool, "exec needs a command (a list: program and arguments, run without a shell)")
	}
	return e, nil
}

func (p *cfgParser) httpHandler(v *canon.Value, ptr, tool string) (*HTTPConfig, error) {
	h := &HTTPConfig{Timeout: DefaultTimeout, MaxResponse: DefaultMaxOutput}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		var err error
		switch m.Key {
		case "url":
			h.URL, err = p.scalarString(&m.Value, mp, tool)
			if err == nil && !strings.HasPrefix(h.URL, "http://") && !strings.HasPrefix(h.URL, "https://") {
				err = p.errAt(mp, tool, "url must be http:// or https://")
			}
		case "timeout":
			h.Timeout, err = p.duration(&m.Value, mp, tool)
		case "maxResponse":
			h.MaxResponse, err = p.size(&m.Value, mp, tool)
		case "headers":
			if m.Value.Kind != canon.Object {
				err = p.errAt(mp, tool, "headers must be a mapping of name to value")
				break
			}
			h.Headers = map[string]string{}
			for j := range m.Value.Members {
				hm := &m.Value.Members[j]
				var s string
				hp := mp + "/" + canon.EscapePointer(hm.Key)
				s, err = p.scalarString(&hm.Value, hp, tool)
				if err == nil {
					if herr := CheckHeader(hm.Key, s); herr != nil {
						err = p.keyErrAt(hp, tool, "header %q: %v", hm.Key, herr)
					}
				}
				if err != nil {
					break
				}
				h.Headers[hm.Key] = s
			}
		default:
			err = p.keyErrAt(mp, tool, "%s", unknownKey(m.Key, httpKeys...))
		}
		if err != nil {
			return nil, err
		}
	}
	if h.URL == "" {
		return nil, p.errAt(ptr, tool, "http needs a url")
	}
	return h, nil
}

func (p *cfgParser) staticHandler(v *canon.Value, ptr, tool string) (*StaticConfig, error) {
	s := &StaticConfig{}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		switch m.Key {
		case "text":
			if m.Value.Kind != canon.String {
				return nil, p.errAt(mp, tool, "text must be a string, got %s", m.Value.Kind)
			}
			s.Text = m.Value.Str
		case "json":
			c := m.Value.Clone()
			s.JSON = &c
		default:
			return nil, p.keyErrAt(mp, tool, "%s", unknownKey(m.Key, staticKeys...))
		}
	}
	if (s.JSON == nil) == !v.Has("text") {
		return nil, p.errAt(ptr, tool, "static needs exactly one of text or json")
	}
	return s, nil
}

func (p *cfgParser) stringList(v *canon.Value, ptr, tool string) ([]string, error) {
	if v.Kind != canon.Array {
		return nil, p.errAt(ptr, tool, "want a list of strings, got %s", v.Kind)
	}
	out := make([]string, 0, len(v.Items))
	for i := range v.Items {
		s, err := p.scalarString(&v.Items[i], ptr+"/"+strconv.Itoa(i), tool)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// envNames reads exec.env: names of variables copied from mcpctl's
// environment. NAME=VALUE is refused: the value would be silently dropped.
func (p *cfgParser) envNames(v *canon.Value, ptr, tool string) ([]string, error) {
	names, err := p.stringList(v, ptr, tool)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		if name, _, ok := strings.Cut(n, "="); ok {
			return nil, p.errAt(ptr+"/"+strconv.Itoa(i), tool, "env lists names of variables copied from mcpctl's environment; %q sets a value, which is not allowed (set %s in the environment mcpctl runs in)", n, name)
		}
	}
	return names, nil
}

// duration reads "10s", "1m30s", or a number of seconds.
func (p *cfgParser) duration(v *canon.Value, ptr, tool string) (time.Duration, error) {
	var d time.Duration
	var err error
	switch v.Kind {
	case canon.String:
		d, err = time.ParseDuration(v.Str)
	case canon.Number:
		var f float64
		f, err = strconv.ParseFloat(v.Str, 64)
		// Converting a float beyond int64 is left to the platform (Go
		// spec, Conversions): refuse it before.
		if err == nil && f*float64(time.Second) >= math.MaxInt64 {
			return 0, p.errAt(ptr, tool, "want a positive duration such as 10s or 1m30s, got %s seconds (at most %d)", v.Str, math.MaxInt64/int64(time.Second))
		}
		d = time.Duration(f * float64(time.Second))
	default:
		err = fmt.Errorf("got %s", v.Kind)
	}
	if err != nil {
		return 0, p.errAt(ptr, tool, "want a positive duration such as 10s or 1m30s (%v)", err)
	}
	if d <= 0 {
		return 0, p.errAt(ptr, tool, "want a positive duration such as 10s or 1m30s, got %s", v.Str)
	}
	return d, nil
}

func (p *cfgParser) size(v *canon.Value, ptr, tool string) (int64, error) {
	if v.Kind == canon.Number {
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil && n > 0 {
			return n, nil
		}
	}
	return 0, p.errAt(ptr, tool, "want a positive number of bytes")
}

// count reads a positive integer (up to 1,000,000).
func (p *cfgParser) count(v *canon.Value, ptr, tool string) (int, error) {
	if v.Kind == canon.Number {
		if n, err := strconv.Atoi(v.Str); err == nil && n > 0 && n <= 1_000_000 {
			return n, nil
		}
	}
	return 0, p.errAt(ptr, tool, "want a positive integer (at most 1000000)")
}

func (p *cfgParser) gate(g *GateConfig, v *canon.Value, ptr string) error {
	if v.Kind != canon.Object {
		return p.errAt(ptr, "", "gate must be a mapping {allow: […]}, got %s", v.Kind)
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		switch m.Key {
		case "allow":
		case "minNotice", "quietPeriod":
			d, err := p.notice(&m.Value, mp, "gate."+m.Key)
			if err != nil {
				return err
			}
			if m.Key == "minNotice" {
				g.MinNotice = &d
			} else {
				g.QuietPeriod = &d
			}
			continue
		case "baseline", "compatibility", "transitive":
			if err := p.gateScalar(g, m.Key, &m.Value, mp); err != nil {
				return err
			}
			continue
		case "descriptions", "upstream":
			if err := p.gateWord(g, m.Key, &m.Value, mp); err != nil {
				return err
			}
			continue
		default:
			return p.keyErrAt(mp, "", "%s", unknownKey(m.Key, gateKeys...))
		}
		if m.Value.Kind != canon.Array {
			return p.errAt(mp, "", "gate.allow must be a list, got %s", m.Value.Kind)
		}
		for j := range m.Value.Items {
			e, err := p.allow(&m.Value.Items[j], mp+"/"+strconv.Itoa(j))
			if err != nil {
				return err
			}
			g.Allow = append(g.Allow, e)
		}
	}
	return nil
}

// gateScalar reads gate.baseline (a path relative to the config's
// folder), gate.compatibility and gate.transitive.
func (p *cfgParser) gateScalar(g *GateConfig, key string, v *canon.Value, ptr string) error {
	if key == "transitive" {
		n, err := p.count(v, ptr, "")
		g.Transitive = n
		return err
	}
	s, err := p.scalarString(v, ptr, "")
	if err != nil {
		return err
	}
	if key == "compatibility" {
		g.Compatibility, err = diff.ParseCompatibility(s)
		if err != nil {
			return p.errAt(ptr, "", "gate.compatibility: %v", err)
		}
		return nil
	}
	if s == "" {
		return p.errAt(ptr, "", "gate.baseline must be a path to a contract lockfile, got an empty string")
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(filepath.Dir(p.source), s)
	}
	g.Baseline = s
	return nil
}

// gateWord reads gate.descriptions and gate.upstream.
func (p *cfgParser) gateWord(g *GateConfig, key string, v *canon.Value, ptr string) error {
	dst, words := &g.Descriptions, []string{DescriptionsNotice, DescriptionsHold}
	if key == "upstream" {
		dst, words = &g.Upstream, []string{UpstreamRefuse, UpstreamAutoFacade}
	}
	s, err := p.scalarString(v, ptr, "")
	if err != nil {
		return err
	}
	if !slices.Contains(words, s) {
		return p.errAt(ptr, "", "gate.%s: %s", key, unknownWord("value", s, words))
	}
	*dst = s
	return nil
}

// notice reads a duration key of gate (name: gate.minNotice,
// gate.quietPeriod): a Go duration ("168h", "0s") or whole days ("7d"), not
// negative.
func (p *cfgParser) notice(v *canon.Value, ptr, name string) (time.Duration, error) {
	if v.Kind != canon.String {
		return 0, p.errAt(ptr, "", "%s must be a duration (7d, 168h, 0s), got %s", name, v.Kind)
	}
	d, err := time.ParseDuration(v.Str)
	if days, ok := strings.CutSuffix(v.Str, "d"); ok {
		n, aerr := strconv.Atoi(days)
		d, err = time.Duration(n)*24*time.Hour, aerr
	}
	if err != nil || d < 0 {
		return 0, p.errAt(ptr, "", "%s must be a duration that is not negative (7d, 168h, 0s), got %q", name, v.Str)
	}
	return d, nil
}

func (p *cfgParser) allow(v *canon.Value, ptr string) (AllowEntry, error) {
	e := AllowEntry{Pos: p.posOf(ptr)}
	if v.Kind != canon.Object {
		return e, p.errAt(ptr, "", "a gate.allow entry is a mapping {%s}, got %s", strings.Join(allowKeys, ", "), v.Kind)
	}
	if v.Get("until") != nil && v.Get("expires") != nil {
		return e, p.keyErrAt(ptr+"/until", "", "gate.allow: until is the old name of expires; give expires only")
	}
	for i := range v.Members {
		m := &v.Members[i]
		mp := ptr + "/" + canon.EscapePointer(m.Key)
		s, err := p.scalarString(&m.Value, mp, "")
		if err != nil {
			return e, err
		}
		switch m.Key {
		case "rule":
			e.Rule = s
		case "tool":
			e.Tool = s
		case "path":
			if s != "" && !strings.HasPrefix(s, "/") {
				return e, p.errAt(mp, "", "path %q is not a JSON Pointer (RFC 6901: empty or starting with /)", s)
			}
			e.Path = s
		case "reason":
			e.Reason = s
		case "expires", "until":
			if e.Expires, err = diff.ParseExpiry(s, m.Key == "until"); err != nil {
				return e, p.errAt(mp, "", "%s: %v", m.Key, err)
			}
			if m.Key == "until" {
				p.warnAt(mp, "gate.allow: until is deprecated; write expires: %s (the first day the entry no longer covers)", diff.ExpiryText(e.Expires))
			}
		default:
			return e, p.keyErrAt(mp, "", "%s", unknownKey(m.Key, allowKeys...))
		}
	}
	if e.Rule == "" && e.Tool == "" {
		return e, p.errAt(ptr, "", "a gate.allow entry needs a rule, a tool or both (an entry for everything would switch the gate off; use --allow-breaking for that)")
	}
	if strings.TrimSpace(e.Reason) == "" {
		return e, p.errAt(ptr, "", "a gate.allow entry needs a reason")
	}
	return e, nil
}

// warnAt adds a warning located at the key of the member at ptr.
func (p *cfgParser) warnAt(ptr, format string, args ...any) {
	pos, ok := p.places.memberKey(ptr)
	if !ok {
		pos = p.posOf(ptr)
	}
	p.warnings = append(p.warnings, fmt.Sprintf("%s: %s", pos, fmt.Sprintf(format, args...)))
}

// Set returns the config's tools as a tool set (the served objects), for
// canon, lint and diff. Two tools with one name are an *toolset.InputError.
func (c *Config) Set() (*toolset.Set, error) { return c.SetOf(nil) }

// SetOf is Set, given the entries already made by SetTool (parsed[i] for
// c.Tools[i]; a missing or nil one is made here, on every core).
func (c *Config) SetOf(parsed []*toolset.Tool) (*toolset.Set, error) {
	tools := make([]*toolset.Tool, len(c.Tools))
	errs := make([]error, len(c.Tools))
	parallel.Each(len(c.Tools), func(i int) {
		if i < len(parsed) && parsed[i] != nil {
			tools[i] = parsed[i]
			return
		}
		tools[i], errs[i] = c.SetTool(c.Tools[i])
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	set, err := toolset.NewSet(c.Source, tools)
	if err != nil {
		var ie *toolset.InputError
		if errors.As(err, &ie) {
			if t := c.toolNamed(ie.Tool, 1); t != nil {
				ie.Line, ie.Col = t.Pos.Line, t.Pos.Col
				ie.Source = t.Pos.File
			}
		}
		return nil, err
	}
	return set, nil
}

// SetTool returns t as an entry of the config's tool set: its served bytes
// parsed again (the value carries offsets into Raw), located in the
// config.
func (c *Config) SetTool(t *ToolConfig) (*toolset.Tool, error) {
	v, err := canon.Parse(t.Raw)
	if err != nil {
		return nil, fmt.Errorf("tool %q: rendering: %w", t.Name, err) // a bug
	}
	return &toolset.Tool{Name: t.Name, Raw: t.Raw, Value: v, Source: c.Source, Offset: -1, Index: t.Index,
		Locate: func(ptr string) toolset.Position {
			p := t.PosOf(ptr)
			return toolset.Position{File: p.File, Line: p.Line, Col: p.Col}
		}}, nil
}

// toolNamed returns the nth (0-based) tool entry named name.
func (c *Config) toolNamed(name string, nth int) *ToolConfig {
	for _, t := range c.Tools {
		if t.Name == name {
			if nth == 0 {
				return t
			}
			nth--
		}
	}
	return nil
}

// Facades returns the facade blocks declared by the config's tools, keyed by
// tool name (the --facades shape of docs/serve.md#config).
func (c *Config) Facades() facade.File {
	f := facade.File{}
	for _, t := range c.Tools {
		if t.Facade != nil {
			f[t.Name] = *t.Facade
		}
	}
	return f
}
