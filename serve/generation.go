package serve

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

// Generation is one immutable, published registry snapshot (docs/glossary.md#glossary,
// docs/serve.md#generations-and-the-reload-pipeline): a version number, the tools with their compiled schemas, handlers
// and facades, the served tools/list bytes, the canonical form and its
// fingerprint. Nothing in a Generation changes after it is published;
// readers load one and use it throughout a request.
type Generation struct {
	// Version is 1 for the first published generation and grows by one
	// with each publish.
	Version uint64
	// Fingerprint is the hex SHA-256 of Canonical, the tool set's canonical
	// form (docs/canon.md#canonical-form).
	Fingerprint string
	Canonical   []byte
	PublishedAt time.Time
	// Set is the tool set as served (for diff and status).
	Set *toolset.Set
	// Config is the config the generation was built from.
	Config *serveconfig.Config

	// toolsJSON is the served "tools" array: each tool's bytes in source
	// member order, sorted by name.
	toolsJSON []byte
	tools     map[string]*liveTool
	aliases   map[string]*aliasRoute
	// names are every callable name (tools and aliases), for suggestions.
	names []string
	// inputs is the digest of everything the generation was built from:
	// the config's files and the upstreams' tool lists (withUpstreams).
	inputs string
	// upstreamKeys are the connections its upstream tools forward over;
	// conns the connections of its config's upstreams by name.
	upstreamKeys []string
	conns        map[string]*upstream.Upstream
	// base is the config without its upstreams' tools; lists are the
	// upstream tool lists served, by upstream name, and quarantined the
	// upstreams served from their last accepted list.
	base        *serveconfig.Config
	lists       map[string]*toolset.Set
	quarantined map[string]bool

	// refs counts the registry's reference (1 while live) plus in-flight
	// calls; at 0 the handlers are closed (releaseOnce).
	refs        atomic.Int64
	releaseOnce sync.Once
	onRelease   func(*Generation)

	// blue is the blue generation built with this candidate when its
	// config starts a blue/green rollout (bluegreen.go); publishing the
	// candidate starts the rollout with it.
	blue *Generation
}

// liveTool is one tool of a generation.
type liveTool struct {
	name     string
	in       *schema.Compiled
	inValue  *canon.Value // the inputSchema, for callcheck's messages
	out      *schema.Compiled
	outValue *canon.Value // the outputSchema, or nil
	handler  handler.Handler
	facade   *facade.Block
	// check is what callcheck.CheckCall checks calls against: in,
	// inValue and facade.
	check  *callcheck.Tool
	meters *toolMeters
	// raw is the tool's served bytes (to reuse its compiled schemas in the
	// next build when they are unchanged).
	raw []byte
	// structured is a static handler's output validated against the
	// outputSchema once, when the generation was built (nil otherwise).
	structured []byte

	// A liveTool is shared by consecutive generations while the tool, its
	// handler config and the environment its handler read are unchanged
	// (see reuseTool). refs counts the generations holding it; the last
	// one to let go closes the handler.
	refs atomic.Int64
	// key identifies the handler and facade config (see toolKey).
	key string
	// env is what the handler read from the environment when it was built.
	env map[string]envRead
}

// aliasRoute is an old tool name routed to a tool (facade alias).
type aliasRoute struct {
	alias  facade.Alias
	target *liveTool
}

// Tools returns the served tool names in order.
func (g *Generation) Tools() []string { return g.Set.Names() }

// ToolsJSON returns the served "tools" array (do not modify).
func (g *Generation) ToolsJSON() []byte { return g.toolsJSON }

// acquire takes a reference for one call. It fails only when the generation
// was already released (its last reference dropped after it stopped being
// live); the caller then loads the live pointer again.
func (g *Generation) acquire() bool {
	for {
		n := g.refs.Load()
		if n <= 0 {
			return false
		}
		if g.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one closes the generation's handlers.
func (g *Generation) release() {
	if g.refs.Add(-1) == 0 {
		g.releaseOnce.Do(func() {
			for _, t := range g.tools {
				t.drop()
			}
			if g.onRelease != nil {
				g.onRelease(g)
			}
		})
	}
}

// buildOptions are the inputs of a candidate build beside the config.
type buildOptions struct {
	getenv    func(string) (string, bool)
	onRelease func(*Generation)
	// prev is the live generation, whose unchanged tools' compiled schemas
	// are reused (nil: compile everything).
	prev *Generation
	// meters resolves a tool's call meters (nil: resolved at call time).
	meters func(name string) *toolMeters
	// exec is the server's account of exec calls (nil: no limits).
	exec *handler.Pool
	// handlerDir is the folder exec handlers resolve relative programs
	// and working folders against; "" is the config's folder. A fallback
	// bundle (a copy in the state) uses the served config's folder.
	handlerDir string
	// upstreams are the open upstream connections by upstream name.
	upstreams map[string]*upstream.Upstream
}

// buildGeneration builds a candidate generation off to the side (docs/serve.md#generations-and-the-reload-pipeline step 2): validate (names, schemas), compile schemas, build handlers,
// render the served bytes and the canonical form. It returns every problem
// as located *toolset.InputError values, joined; on error nothing it built
// is left open.
func buildGeneration(cfg *serveconfig.Config, opts buildOptions) (*Generation, error) {
	compiled, err := validateConfig(cfg, opts.prev)
	if err != nil {
		return nil, err
	}
	parsed := make([]*toolset.Tool, len(compiled))
	for i, ct := range compiled {
		parsed[i] = ct.tool
	}
	set, err := cfg.SetOf(parsed)
	if err != nil {
		return nil, err
	}
	if opts.getenv == nil {
		opts.getenv = os.LookupEnv
	}
	// Absolute, so a relative program runs the same whatever its Dir.
	dir, err := filepath.Abs(cmp.Or(opts.handlerDir, filepath.Dir(cfg.Source)))
	if err != nil {
		return nil, err
	}
	g := &Generation{
		Set:     set,
		Config:  cfg,
		tools:   make(map[string]*liveTool, len(compiled)),
		aliases: map[string]*aliasRoute{},
	}
	if err := g.buildTools(compiled, dir, opts); err != nil {
		return nil, err
	}
	g.index(opts)
	g.onRelease = opts.onRelease
	g.refs.Store(1)
	return g, nil
}

// buildTools fills g.tools: a tool unchanged since opts.prev is reused,
// every other one built (buildTool). On error every tool is dropped.
func (g *Generation) buildTools(compiled []*compiledTool, dir string, opts buildOptions) error {
	var errs []error
	for _, ct := range compiled {
		t := ct.cfg
		key := toolKey(t, dir)
		if pt := reuseTool(opts.prev, t, key, opts.getenv); pt != nil {
			g.tools[t.Name] = pt
			continue
		}
		lt, err := buildTool(ct, key, dir, opts)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		g.tools[t.Name] = lt
	}
	if len(errs) > 0 {
		for _, t := range g.tools {
			t.drop()
		}
		return errors.Join(errs...)
	}
	return nil
}

// buildTool builds one tool's handler and call check; key is its toolKey.
func buildTool(ct *compiledTool, key, dir string, opts buildOptions) (*liveTool, error) {
	t := ct.cfg
	if t.Handler == nil {
		return nil, posError(t, t.Pos, "", "tool has no handler (want handler: {exec: …}, {http: …} or {static: …})")
	}
	env := map[string]envRead{}
	h, err := buildHandler(t.Handler, dir, recordEnv(opts.getenv, env), opts.exec, opts.upstreams)
	if err != nil {
		return nil, posError(t, t.Handler.Pos, "/handler", err.Error())
	}
	lt := &liveTool{name: t.Name, key: key, env: env, raw: t.Raw, in: ct.in, inValue: t.Value.Get("inputSchema"), out: ct.out, outValue: t.Value.Get("outputSchema"), handler: h, facade: t.Facade}
	lt.check = &callcheck.Tool{Name: lt.name, Schema: lt.inValue, Compiled: lt.in, Facade: lt.facade}
	if sh, ok := h.(handler.Static); ok && ct.out != nil {
		if err := lt.checkStatic(t, sh); err != nil {
			h.Close()
			return nil, err
		}
	}
	if opts.meters != nil {
		lt.meters = opts.meters(t.Name)
	}
	lt.refs.Store(1)
	return lt, nil
}

// checkStatic checks a static handler's fixed output against the
// outputSchema now, so a violation refuses the candidate instead of
// failing each call; it keeps the output as structured content.
func (lt *liveTool) checkStatic(t *serveconfig.ToolConfig, sh handler.Static) error {
	v, perr := canon.Parse(sh.Body)
	verr, inst := perr, any(nil)
	if perr == nil {
		inst = schema.Instance(&v)
		verr = lt.out.Validate(inst)
	}
	if verr != nil {
		return posError(t, t.Handler.Pos, "/handler/static",
			"the static output does not match the tool's outputSchema:"+callcheck.Lines(callcheck.Problems(lt.outValue, inst, verr), "(output)"))
	}
	lt.structured = canon.AppendOrdered(nil, &v)
	return nil
}

// index fills what g derives from its tools: the alias routes, the
// served bytes, the canonical form and fingerprint, the names and the
// upstream connections it uses.
func (g *Generation) index(opts buildOptions) {
	for _, t := range g.tools {
		if t.facade == nil {
			continue
		}
		for _, a := range t.facade.Aliases {
			g.aliases[a.Name] = &aliasRoute{alias: a, target: t}
		}
	}
	// Served bytes: the tools in name order, each as written.
	buf := make([]byte, 0, 1024)
	buf = append(buf, '[')
	for i, t := range g.Set.Tools {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, t.Raw...)
	}
	g.toolsJSON = append(buf, ']')
	g.Canonical = g.Set.Canonical(false)
	g.Fingerprint = canon.Fingerprint(g.Canonical)
	for name := range g.tools {
		g.names = append(g.names, name)
	}
	for name := range g.aliases {
		g.names = append(g.names, name)
	}
	g.inputs, g.conns = g.Config.Digest, opts.upstreams
	for _, t := range g.Config.Tools {
		if u := t.Handler; u != nil && u.Upstream != nil && !slices.Contains(g.upstreamKeys, u.Upstream.Conn) {
			g.upstreamKeys = append(g.upstreamKeys, u.Upstream.Conn)
		}
	}
}

// discard closes a candidate that will never be published.
func (g *Generation) discard() {
	for _, t := range g.tools {
		t.drop()
	}
	if g.blue != nil {
		g.blue.discard()
	}
}

func (g *Generation) String() string {
	return fmt.Sprintf("generation %d (%s)", g.Version, shortFP(g.Fingerprint))
}

func shortFP(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
