package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/internal/clock"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

// Options configures a Server.
type Options struct {
	// ConfigPath is the serve config (docs/serve.md#config), YAML or JSON.
	ConfigPath string
	// Logger receives the server's logs; nil discards them. Argument values
	// and secrets are never logged.
	Logger *slog.Logger
	// AllowBreaking publishes candidates the gate would refuse, logging a
	// warning at every such publish (--allow-breaking).
	AllowBreaking bool
	// Debounce is how long the watcher waits for quiet after a change
	// before reloading; 0 means 100 ms.
	Debounce time.Duration
	// NotifyTimeout bounds one notification write to one session; 0 means
	// 10 s. A stalled client only delays its own notifications.
	NotifyTimeout time.Duration
	// Getenv reads the environment for handlers (exec allowlists, http
	// header secrets); nil means os.LookupEnv.
	Getenv func(string) (string, bool)
	// Clock tells the time of gate.allow expiries, sunsets, session pins
	// and blue/green retirement, and runs the pin and retirement timers;
	// nil means clock.System (the wall clock).
	Clock clock.Clock
	// RecordDir, when set, appends every tools/call as an mcpctl fixture
	// line to RecordDir/calls-<UTC start>-<pid>-<random>.jsonl (--record; see
	// serveconfig.RecordConfig and package recording for the format and
	// redaction).
	RecordDir string
	// PinSessions pins each session (2025-11-25 and earlier, stdio or
	// stateful HTTP) to the generation live at its initialize, for
	// tools/list and tools/call, until it ends or PinTTL passes (docs/serve.md#active-conversations-pinning, --pin-sessions; see pin.go).
	PinSessions bool
	// PinTTL is how long a pin holds; 0 means DefaultPinTTL (1 h).
	PinTTL time.Duration
	// ExecConcurrency bounds the exec handler commands running at once in
	// the server (--exec-concurrency); 0 means DefaultExecConcurrency. A
	// tool's own bound is its exec concurrency key.
	ExecConcurrency int
	// ExecQueue bounds the exec calls waiting for a slot (--exec-queue); 0
	// means DefaultExecQueue. A call beyond it is an isError result at once.
	ExecQueue int
	// MaxCalls bounds the tools/call requests the server answers at once,
	// over every transport and handler (--max-calls); 0 means
	// DefaultMaxCalls, a negative value sets no bound. A call beyond it is
	// an isError result at once, so that a client sending calls faster
	// than the tools answer them cannot make the server hold work, and
	// its memory, without end.
	MaxCalls int
	// TracerProvider, when set, receives a span per tools/call and per
	// reload (see trace.go); nil traces nothing.
	TracerProvider trace.TracerProvider
	// State, when set, is the durable state of docs/serve.md#state (serve
	// --state): every publish and decision is recorded there, the first
	// config is gated against its last published contract, calls are
	// counted in its usage counters. The caller opens and closes it.
	State *state.State
	// MaxFileSize bounds the config and each $file include, in bytes; 0
	// means DefaultMaxFileSize. Only regular files are read, each within
	// a time limit (see LoadConfig).
	MaxFileSize int64
	// UpstreamBackoff is the first wait before restarting a gateway
	// upstream that went away (docs/serve.md#gateway, Crashes); it doubles
	// after each failed attempt, up to four times UpstreamBackoff. 0 means
	// upstream.DefaultMinBackoff doubling up to upstream.DefaultMaxBackoff.
	UpstreamBackoff time.Duration
}

// DefaultMaxFileSize is the default Options.MaxFileSize (16 MiB).
const DefaultMaxFileSize = safefile.DefaultMaxSize

// DefaultDebounce is the watcher's default quiet period.
const DefaultDebounce = 100 * time.Millisecond

// Server is the hot-reloading, gated MCP server of docs/serve.md#serve-the-hot-reloading-gated-server. Build one with
// New, connect transports with Connect, ServeStdio or HTTPHandler, watch the
// config with Watch, and expose AdminHandler. All methods are safe for
// concurrent use.
type Server struct {
	opts    Options
	hooks   hooks // tests only (export_test.go)
	log     *slog.Logger
	mcp     *mcp.Server
	tracing tracing
	// fastCalls counts the calls the fast path took (fastcall.go).
	fastCalls atomic.Int64
	// fastWorkers run the line fast path's calls (workers.go).
	fastWorkers *workers
	// serverInfo is the JSON of the server's mcp.Implementation, which the
	// fast path adds to the _meta of a 2026-07-28 request's result.
	serverInfo json.RawMessage

	live atomic.Pointer[Generation]
	// pubMu serializes writers (publish, refuse, status of the last
	// reload); readers never take it.
	pubMu sync.Mutex
	// seq numbers candidate builds; a candidate whose number is below the
	// newest started build is stale and discarded.
	seq atomic.Uint64
	// mem is the gate's memory of earlier publishes (under pubMu).
	mem gateMemory
	// quarantining is the refused candidate a gateway quarantine keeps
	// pending while it publishes the rest of the change (under pubMu;
	// "" otherwise).
	quarantining string

	notifier *notifier
	metrics  *metrics
	rec      *recording.Writer // nil unless recording
	exec     *handler.Pool
	meters   sync.Map // tool name -> *toolMeters

	statusMu   sync.Mutex
	lastReload *ReloadResult
	refused    []ReloadResult

	// watched is called with the files of each config read (the watcher
	// follows includes as they change).
	watchedMu sync.Mutex
	watched   func(files []string)
	files     []string

	ready    atomic.Bool
	draining atomic.Bool
	inflight inflight
	// callsRefused counts calls refused at Options.MaxCalls.
	callsRefused atomic.Int64
	// posts counts HTTP POST requests being answered (http.go).
	posts inflight
	// pinned counts pinned sessions (pin.go).
	pinned atomic.Int64
	// rollout is the blue/green rollout, once one started (bluegreen.go);
	// bluePinned counts the sessions on its blue side.
	rollout        atomic.Pointer[rollout]
	bluePinned     atomic.Int64
	rolloutMetrics rolloutMetrics
	// lists caches the rendered tools/list result of the latest
	// generation listed: [0] for sessions, [1] sessionless (mcpserver.go).
	lists [2]atomic.Pointer[renderedList]
	// reloads coalesces concurrent reloads (reloadq.go).
	reloads reloadQueue
	// slots counts stateful HTTP sessions against their cap (sessions.go).
	slots sessionSlots
	// gw holds the upstream connections (gateway.go).
	gw gateway

	baseCtx    context.Context
	baseCancel context.CancelFunc
	closeOnce  sync.Once
}

// New reads the config, builds and publishes the first generation, and
// returns the server. A config that cannot be built is an error (wrapping
// toolset.ErrInput for bad input); nothing is served then.
func New(ctx context.Context, opts Options) (*Server, error) {
	return newServer(ctx, opts, hooks{})
}

// withDefaults is opts with its zero values replaced by the documented
// defaults.
func (opts Options) withDefaults() Options {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.NotifyTimeout <= 0 {
		opts.NotifyTimeout = 10 * time.Second
	}
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.Clock == nil {
		opts.Clock = clock.System
	}
	if opts.PinTTL <= 0 {
		opts.PinTTL = DefaultPinTTL
	}
	if opts.MaxCalls == 0 {
		opts.MaxCalls = DefaultMaxCalls
	}
	return opts
}

// DefaultMaxCalls is the default Options.MaxCalls: each call in flight
// holds its arguments (up to --max-body over HTTP) and a goroutine or two.
const DefaultMaxCalls = 1024

// newServer is New with the test hooks h; New passes none.
func newServer(ctx context.Context, opts Options, h hooks) (*Server, error) {
	if opts.ConfigPath == "" {
		return nil, errors.New("serve: no config path")
	}
	opts = opts.withDefaults()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, hooks: h, log: log, metrics: newMetrics(), tracing: newTracing(opts.TracerProvider), fastWorkers: newWorkers()}
	s.registerPinMetrics()
	s.metrics.reg.MustRegister(append(s.inFlightMetrics(), upstreamCollector{s})...)
	s.exec = handler.NewPool(opts.ExecConcurrency, opts.ExecQueue, s.metrics.reg)
	s.registerSessionMetrics()
	s.baseCtx, s.baseCancel = context.WithCancel(context.Background())
	s.initGateState()
	s.notifier = newNotifier(s)
	// The first reload starts the upstreams with baseCtx (a start outlives
	// the reload that began it); until New returns, ctx ending (SIGTERM)
	// ends them too, rather than after their startTimeout.
	stop := context.AfterFunc(ctx, s.baseCancel)
	res := s.Reload(ctx, "startup")
	interrupted := !stop()
	if interrupted || res.Result != ResultPublished && res.Result != ResultQuarantined {
		s.baseCancel()
		s.fastWorkers.close()
		s.closeUpstreams()
		if interrupted {
			return nil, fmt.Errorf("serve: stopped while starting: %w", context.Cause(ctx))
		}
		if res.Cause != nil {
			return nil, res.Cause
		}
		return nil, fmt.Errorf("serve: the first config was not published: %s", res.Result)
	}
	g := s.live.Load()
	info := g.Config.Server
	name := info.Name
	if name == "" {
		name = "mcpctl-serve"
	}
	impl := &mcp.Implementation{Name: name, Title: info.Title, Version: info.Version}
	s.serverInfo, _ = json.Marshal(impl)
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: info.Instructions,
		Logger:       sdkLogger(log, "mcp"),
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	s.mcp.AddSendingMiddleware(s.notifier.sendingMiddleware)
	s.mcp.AddReceivingMiddleware(s.recoverMiddleware, s.receivingMiddleware)
	if opts.RecordDir != "" {
		rec, err := recording.New(recording.Options{Dir: opts.RecordDir, Start: opts.Clock.Now(), Logger: log, Registerer: s.metrics.reg})
		if err != nil {
			s.Close()
			return nil, err
		}
		s.rec = rec
	}
	s.startUpstreamReloads()
	return s, nil
}

// MCPServer returns the underlying go-sdk server (for transports).
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Live returns the live generation.
func (s *Server) Live() *Generation { return s.live.Load() }

// SetReady marks the server ready for /readyz (after its listeners are up).
func (s *Server) SetReady(ready bool) { s.ready.Store(ready) }

// Connect serves one session over t (e.g. an in-memory transport) until it
// ends.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// Close stops background work (notification senders, the record writer,
// after it wrote the queued records). It does not close
// sessions; the transports do. It is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.baseCancel()
		s.fastWorkers.close()
		s.closeUpstreams()
		s.exec.Kill()
		s.notifier.wait()
		s.rec.Close()
		s.stopRollout()
		s.unpinAll()
		if g := s.live.Load(); g != nil {
			g.release()
		}
	})
}

// Reload results (admin.ReloadResult.Result).
const (
	ResultPublished  = admin.ResultPublished
	ResultUnchanged  = admin.ResultUnchanged
	ResultRefused    = admin.ResultRefused
	ResultSuperseded = admin.ResultSuperseded
)

// ReloadResult is the outcome of one reload
// (docs/serve.md#generations-and-the-reload-pipeline), kept for /status
// (admin.ReloadResult; Err is the refusal as an error).
type ReloadResult = admin.ReloadResult

// Reload reads the config and runs the reload pipeline (docs/serve.md#generations-and-the-reload-pipeline): build
// a candidate off to the side, gate it against the live generation, publish
// it with one atomic swap and notify sessions when the canonical form
// changed. It never loses the live generation. trigger names the cause
// ("watch", "SIGHUP", "admin", …) for logs and /status. Concurrent calls
// are coalesced (see reloadQueue).
func (s *Server) Reload(ctx context.Context, trigger string) ReloadResult {
	return s.tracing.reload(ctx, trigger, func(ctx context.Context) ReloadResult {
		return s.reloads.do(func() ReloadResult { return s.reload(ctx, trigger) }, func() { s.seq.Add(1) })
	})
}

// reload runs the pipeline once (Reload serializes the calls).
func (s *Server) reload(ctx context.Context, trigger string) ReloadResult {
	seq := s.seq.Add(1)
	start := time.Now()
	res := ReloadResult{Trigger: trigger}
	cand, unchanged, err := s.candidate(seq, trigger)
	if unchanged {
		res.Result = ResultUnchanged
	}

	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	now := s.opts.Clock.Now()
	res.At = now
	live := s.live.Load()
	if live != nil {
		res.Version, res.Fingerprint = live.Version, live.Fingerprint
	}
	switch {
	case seq < s.seq.Load(), errors.Is(err, errStale):
		// A newer build started after this one, or the config kept
		// changing: the newest config is for a later reload.
		res.Result = ResultSuperseded
		if cand != nil {
			cand.discard()
		}
		s.log.Info("reload superseded by a newer change", "trigger", trigger)
	case err != nil:
		res.Result = ResultRefused
		res.Reason = "the candidate could not be built"
		res.Errors = errorLines(err)
		res.Cause = err
		if live == nil {
			// New returns the error, and its caller reports it: logging it
			// too would print every problem twice.
			s.log.Debug("config refused: invalid; nothing is served", "trigger", trigger)
		} else {
			s.log.Error("reload refused: invalid candidate; the live generation stays", "trigger", trigger, "errors", res.Errors)
			s.supersede("")
		}
	case res.Result == ResultUnchanged:
		s.log.Info("reload: config unchanged", "trigger", trigger, "version", res.Version)
		s.supersede(live.Fingerprint)
	case live == nil:
		s.first(cand, now, &res, trigger)
	default:
		s.gateUpstreams(live, cand, now, &res, trigger)
	}
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	s.metrics.reloads.WithLabelValues(res.Result).Inc()
	if res.Result == ResultPublished {
		s.metrics.publishLatency.Observe(time.Since(start).Seconds())
	}
	s.recordReload(res)
	s.pruneUpstreams()
	if s.hooks.onReload != nil {
		s.hooks.onReload(res)
	}
	return res
}

// candidate reads the config and builds a candidate generation off to the
// side (unchanged, and no candidate, when its inputs are those of the live
// generation). A panic while doing so is a *PanicError: the candidate is
// refused and the process goes on.
//
// A candidate whose inputs changed on disk while it was being built is
// stale: it is discarded and the newest inputs are built instead (up to
// maxStaleBuilds times; then the reload is superseded, and the change that
// keeps coming triggers the next). So the last write is the one considered,
// never a config that no longer exists on disk.
func (s *Server) candidate(seq uint64, trigger string) (cand *Generation, unchanged bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			if cand != nil {
				cand.discard()
			}
			cand, unchanged, err = nil, false, s.bug(panicReload, v)
		}
	}()
	lim := safefile.Limits{MaxSize: s.opts.MaxFileSize}
	for range maxStaleBuilds {
		var cfg *serveconfig.Config
		cfg, cand, unchanged, err = s.build(lim, trigger)
		if s.hooks.beforePublish != nil {
			s.hooks.beforePublish(seq)
		}
		if unchanged || cfg == nil || !cfg.ChangedOnDisk(lim) {
			return cand, unchanged, err
		}
		if cand != nil {
			cand.discard()
		}
		s.log.Info("the config changed on disk while its candidate was built; building the newest", "version", cfg.Digest[:12])
	}
	return nil, false, errStale
}

// maxStaleBuilds bounds how often one reload rebuilds because its inputs
// changed during the build.
const maxStaleBuilds = 3

// errStale ends a reload whose inputs kept changing during its builds.
var errStale = errors.New("the config kept changing on disk while candidates were built")

// build reads the config, logs its warnings (a deprecated key) and builds a
// candidate (none when its inputs are the live generation's).
func (s *Server) build(lim safefile.Limits, trigger string) (cfg *serveconfig.Config, cand *Generation, unchanged bool, err error) {
	cfg, err = serveconfig.LoadConfigLimits(s.opts.ConfigPath, lim)
	if err != nil {
		return nil, nil, false, err
	}
	s.setFiles(cfg.Files)
	for _, w := range cfg.Warnings {
		s.log.Warn("config warning", "trigger", trigger, "warning", w)
	}
	cand, unchanged, err = s.buildCandidate(cfg, trigger == "SIGHUP" || trigger == "admin", nil)
	return cfg, cand, unchanged, err
}

// buildCandidate builds the candidate of cfg and its upstreams' current
// tool lists (refresh: read them again first); unchanged, and no
// candidate, when its inputs are the live generation's.
//
// The upstreams in quarantine are served from the accepted list given for
// them, their calls translated to their current lists.
func (s *Server) buildCandidate(cfg *serveconfig.Config, refresh bool, quarantine map[string]*toolset.Set) (cand *Generation, unchanged bool, err error) {
	conns, keys, err := s.upstreamConns(cfg, refresh)
	if err != nil {
		return nil, false, err
	}
	cand, unchanged, err = s.buildWith(cfg, conns, keys, quarantine)
	if err != nil && quarantine == nil {
		return s.isolateUpstreams(cfg, conns, keys, err)
	}
	return cand, unchanged, err
}

// buildWith is buildCandidate over the upstreams' open connections.
func (s *Server) buildWith(cfg *serveconfig.Config, conns map[string]*upstream.Upstream, keys map[string]string, quarantine map[string]*toolset.Set) (cand *Generation, unchanged bool, err error) {
	live := s.live.Load()
	ups := make([]upstreamInput, 0, len(cfg.Upstreams))
	for _, uc := range cfg.Upstreams {
		in := upstreamInput{cfg: uc, key: keys[uc.Name], served: conns[uc.Name].Tools()}
		if accepted := quarantine[uc.Name]; accepted != nil {
			in.tr = newTranslator(uc, accepted, in.served, cfg.Gate.Upstream == serveconfig.UpstreamAutoFacade, s.opts.Clock.Now())
			in.served = accepted
		}
		ups = append(ups, in)
	}
	full, inputs := withUpstreams(cfg, ups)
	if live != nil && live.inputs == inputs {
		return nil, true, nil
	}
	s.warnUnlisted(cfg, conns)
	cand, err = buildGeneration(full, buildOptions{getenv: s.opts.Getenv, onRelease: s.released, meters: s.toolMeters, prev: live, exec: s.exec, upstreams: conns, handlerDir: s.handlerDir()})
	if cand != nil {
		cand.inputs, cand.base = inputs, cfg
		cand.lists, cand.quarantined = map[string]*toolset.Set{}, map[string]bool{}
		for _, in := range ups {
			cand.lists[in.cfg.Name], cand.quarantined[in.cfg.Name] = in.served, in.tr != nil
		}
	}
	if err == nil {
		if err = s.withBlue(cfg, cand); err != nil {
			cand.discard()
			cand = nil
		}
	}
	return cand, false, err
}

// acceptedLists are the lists g serves of the upstreams named in names
// (those it does not serve are left out).
func (g *Generation) acceptedLists(names map[string]bool) map[string]*toolset.Set {
	out := map[string]*toolset.Set{}
	for name := range names {
		if l := g.lists[name]; l != nil {
			out[name] = l
		}
	}
	return out
}

// gate runs the gate (gate.go) on cand against prev; a panic is a
// *PanicError.
func (s *Server) gate(prev *lockfile.Lock, cand *Generation, now time.Time) (d gateDecision, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = s.bug(panicReload, v)
		}
	}()
	d = gate(prev, cand, &s.mem, s.usage(cand.Config.Gate.EffectiveQuietPeriod()), s.opts.AllowBreaking, now)
	holdDescriptions(&d, s.live.Load(), cand, s.opts.AllowBreaking)
	return d, nil
}

// first decides the first candidate (the caller holds pubMu): gated
// against the newer of the state's last published contract and
// gate.baseline, published when nothing refuses it; refused, the
// state's last accepted bundle is served instead and the candidate is
// pending, or, with no bundle to fall back on, the result is
// ErrRefusedAtStart.
func (s *Server) first(cand *Generation, now time.Time, res *ReloadResult, trigger string) {
	choice, err := s.startContract(cand)
	if err != nil {
		res.Result, res.Reason, res.Errors, res.Cause = ResultRefused, "the gate's baseline could not be read", errorLines(err), err
		cand.discard()
		return
	}
	if choice.Contract == nil {
		s.publish(cand, now, &state.Allowance{Kind: state.First})
		res.Result, res.Version, res.Fingerprint, res.Changed = ResultPublished, cand.Version, cand.Fingerprint, true
		s.log.Info("published", "trigger", trigger, "version", cand.Version, "fingerprint", cand.Fingerprint, "tools", len(cand.Set.Tools))
		return
	}
	s.log.Info("gating the first config", "against", choice.From, "why", choice.Why)
	// The contract gated against was served before this process: its
	// deprecations are noticed as a first generation's are.
	s.mem.published(nil, choice.Contract.Set, now)
	if s.gated(choice.Contract, nil, cand, now, res, trigger) || s.quarantineAtStart(choice.Contract, cand, now, res, trigger) {
		return
	}
	if refused := blockingOf(res.Findings); cand.fronts() && len(refused) > 0 {
		s.logRefused(true, trigger, maxLevel(refused).String(), refused, cand.Fingerprint)
	}
	fb, err := s.fallback()
	if err != nil || fb == nil {
		if res.Cause != nil && !errors.Is(res.Cause, errGateBug) {
			res.Cause = fmt.Errorf("%w (gated against the %s: %s): %w", ErrRefusedAtStart, choice.From, choice.Why, res.Cause)
		}
		res.Cause = errors.Join(res.Cause, err)
		return
	}
	s.publish(fb, now, nil)
	res.Result, res.Version, res.Fingerprint, res.Changed = ResultPublished, fb.Version, fb.Fingerprint, true
	res.Reason = fmt.Sprintf("the config was refused and is pending as %s; serving the last accepted config from the state", cand.Fingerprint)
	res.Cause = nil
	s.log.Warn("the config was refused at start: serving the state's last accepted config; the new one is pending (mcpctl approve or reject)",
		"pending", cand.Fingerprint, "version", fb.Version, "fingerprint", fb.Fingerprint)
}

// gated gates cand against prev (live's contract, or at start the
// state's or baseline's, live nil) and publishes it, or refuses it and
// lists it as pending (the caller holds pubMu). It reports whether cand
// was published.
func (s *Server) gated(prev *lockfile.Lock, live, cand *Generation, now time.Time, res *ReloadResult, trigger string) bool {
	liveFP := prev.Set.Fingerprint()
	if live != nil {
		liveFP = live.Fingerprint
	}
	d, gerr := s.gateAll(prev, liveFP, cand, now)
	if gerr != nil {
		res.Result, res.Reason, res.Errors, res.Cause = ResultRefused, "the gate failed on a bug (logged)", errorLines(gerr), fmt.Errorf("%w: %w", errGateBug, gerr)
		cand.discard()
		return false
	}
	res.Findings = d.Findings
	res.Candidate = cand.Fingerprint
	if d.Refused {
		res.Result = ResultRefused
		res.Reason = fmt.Sprintf("the candidate has %d finding(s) that need permission and no gate.allow entry covers them (or start the server with --allow-breaking)", len(d.Blocking))
		res.Cause = fmt.Errorf("candidate refused: %s:%s", res.Reason, explain(d.Blocking))
		s.pend(cand, d, liveFP)
		cand.discard()
		// A refusal that may quarantine upstreams is logged by the
		// caller once it knows (gateUpstreams, first).
		if !s.quarantinable(live, cand, res.Findings) && !(live == nil && cand.fronts()) {
			s.logRefused(live == nil, trigger, d.Report.Level.String(), d.Blocking, cand.Fingerprint)
		}
		return false
	}
	if len(d.Blocking) > 0 {
		res.AllowedBreaking = true
		s.log.Warn("publishing a breaking candidate because of --allow-breaking", "trigger", trigger, "findings", findingSummaries(d.Blocking))
	}
	allowed := allowance(d)
	s.publishChanged(live, cand, now, &allowed, res)
	s.log.Info("published", "trigger", trigger, "version", cand.Version, "fingerprint", cand.Fingerprint,
		"changed", res.Changed, "gate_level", d.Report.Level.String(), "tools", len(cand.Set.Tools))
	return true
}

// logRefused logs a refused candidate at level ERROR: the live generation
// (none when first) stays.
func (s *Server) logRefused(first bool, trigger, level string, blocking []Finding, fingerprint string) {
	msg := "reload refused by the gate; the live generation stays"
	if first {
		msg = "the first config was refused by the gate"
	}
	s.log.Error(msg, "trigger", trigger, "gate_level", level, "findings", findingSummaries(blocking), "candidate", fingerprint)
}

// publishChanged publishes cand over live (nil at start), notifying
// sessions when the canonical form changed, and fills res.
func (s *Server) publishChanged(live, cand *Generation, now time.Time, allowed *state.Allowance, res *ReloadResult) {
	changed := live == nil || cand.Fingerprint != live.Fingerprint
	s.publish(cand, now, allowed)
	res.Result, res.Version, res.Fingerprint, res.Changed = ResultPublished, cand.Version, cand.Fingerprint, changed
	if changed && live != nil {
		s.notifier.changed(cand)
	}
}

// errGateBug marks a refusal because the gate itself failed.
var errGateBug = errors.New("gate failure")

// publish swaps cand in (the caller holds pubMu) and, when allowed is
// set, records the publish in the state.
func (s *Server) publish(cand *Generation, now time.Time, allowed *state.Allowance) {
	old := s.live.Load()
	cand.Version = 1
	if old != nil {
		cand.Version = old.Version + 1
	}
	cand.PublishedAt = now
	var oldSet *toolset.Set
	if old != nil {
		oldSet = old.Set
	}
	s.mem.published(oldSet, cand.Set, now)
	s.useUpstreams(cand)
	s.beginRollout(old, cand)
	s.live.Store(cand)
	s.metrics.version.Set(float64(cand.Version))
	if old != nil {
		old.release() // the registry's reference; in-flight calls keep theirs
	}
	s.endRollout(cand)
	// Recorded once served: the state's fsyncs do not delay callers
	// seeing cand; the next reload waits for them (pubMu).
	if allowed != nil {
		s.persist(cand, *allowed)
	}
}

func (s *Server) recordReload(res ReloadResult) {
	s.statusMu.Lock()
	defer s.statusMu.Unlock()
	r := res
	s.lastReload = &r
	if res.Result == ResultRefused {
		s.refused = append(s.refused, res)
		if len(s.refused) > maxRefusedKept {
			s.refused = slices.Delete(s.refused, 0, len(s.refused)-maxRefusedKept)
		}
	}
}

// maxRefusedKept is how many refusals /status remembers.
const maxRefusedKept = 20

func (s *Server) setFiles(files []string) {
	s.watchedMu.Lock()
	defer s.watchedMu.Unlock()
	s.files = slices.Clone(files)
	if s.watched != nil {
		s.watched(s.files)
	}
}

// errorLines splits a joined error into its messages.
func errorLines(err error) []string {
	var lines []string
	var walk func(error)
	walk = func(e error) {
		if ie, ok := e.(*toolset.InputError); ok {
			lines = append(lines, ie.Error())
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		lines = append(lines, e.Error())
	}
	walk(err)
	return lines
}

func findingSummaries(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%s %s tool=%s", f.Level, f.Rule, f.Tool)
		if f.Path != "" {
			out[i] += " path=" + f.Path
		}
		if f.Expired != "" {
			out[i] += " (" + f.Expired + ")"
		}
	}
	return out
}

// sdkLogger gives the go-sdk a logger that keeps its warnings and errors but
// drops its per-session info chatter unless debug logging is on.
func sdkLogger(log *slog.Logger, component string) *slog.Logger {
	return slog.New(quietHandler{log.Handler()}).With("component", component)
}

type quietHandler struct{ slog.Handler }

func (q quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if l < slog.LevelWarn && !q.Handler.Enabled(ctx, slog.LevelDebug) {
		return false
	}
	return q.Handler.Enabled(ctx, l)
}

func (q quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{q.Handler.WithAttrs(as)}
}
func (q quietHandler) WithGroup(n string) slog.Handler { return quietHandler{q.Handler.WithGroup(n)} }
