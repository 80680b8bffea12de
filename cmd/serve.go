package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/handler"
	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/state"
)

type serveOptions struct {
	Config          string
	HTTP            string
	Stateless       bool
	Admin           string
	AllowBreaking   bool
	Debounce        time.Duration
	ShutdownTimeout time.Duration
	AllowOrigins    []string
	TokenFile       string
	MaxBody         int64
	LogFormat       string
	LogLevel        string
	NoWatch         bool
	Record          string
	PinSessions     bool
	PinTTL          time.Duration
	ExecConcurrency int
	ExecQueue       int
	MaxCalls        int
	SessionTimeout  time.Duration
	MaxSessions     int
	ReadHeaderTO    time.Duration
	ReadTO          time.Duration
	IdleTO          time.Duration
	AdminTokenFile  string
	MaxFileSize     int64
	State           string
}

// NewCmdServe builds `mcpctl serve`; runF, when set, receives the parsed
// options instead of runServe (tests).
func NewCmdServe(s *Streams, runF func(*serveOptions) error) *cobra.Command {
	opts := serveOptions{}
	c := &cobra.Command{
		Use:     "serve (CONFIG | --config CONFIG)",
		Short:   "Serve the tools of a config over MCP, hot-reloading it behind a compatibility gate",
		Long:    serveLong,
		Example: serveExample,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := configArg(args, &opts.Config); err != nil {
				return err
			}
			if err := checkServeFlags(c.Flags().Changed, opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(&opts)
			}
			return runServe(c.Context(), s, opts)
		},
	}
	addServeFlags(c, &opts)
	return c
}

// serveLong is the help text of `mcpctl serve`.
const serveLong = `Serve the tools of a serve config (YAML or JSON) over MCP: stdio by default,
streamable HTTP with --http. The config is watched; every change is built
as a candidate off to the side, diffed against the live tool set and
published with one atomic swap only when it is not breaking, or when every
breaking finding is covered by a gate.allow entry (or --allow-breaking).
Sessions get notifications/tools/list_changed when the tool contract
changed. SIGHUP and POST /reload on the admin listener reload too.

As a gateway, the same gate fronts MCP servers mcpctl does not host: each
upstreams: entry of the config starts one (stdio: [command, args…]) or
reaches one (http: {url, headers}), and its tools are served beside the
config's (under an optional prefix), its tool list changes gated like config
edits. A refused change quarantines the upstream: its accepted tools stay
served and calls are translated. With --state, mcpctl status --admin ADDR
lists the refused candidate and mcpctl approve publishes it (see
docs/gateway.md).

A reload starts once the config has been quiet for --debounce (default
100ms): every change restarts the wait, so a file rewritten about as often
as the debounce period reloads only in the gaps (a writer rewriting every
100ms had 56 of its 400 versions published), and always reloads the last
version once the writes stop. Raise --debounce for generated configs.

With --http, MCP is served on the path /mcp only (every other path is 404),
e.g. http://127.0.0.1:8931/mcp; the admin listener (--admin) is a separate
address for /status, /metrics and POST /reload.

Logs go to standard error: text on a terminal, JSON otherwise. Argument
values and secrets are never logged.

Traces: when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set,
every tools/call and every reload is an OpenTelemetry span sent over
OTLP/HTTP, a tools/call a child of the trace in its params._meta.traceparent;
attributes follow the OpenTelemetry MCP conventions (mcp.method.name,
gen_ai.tool.name, mcp.session.id, mcp.protocol.version). Off otherwise.

The bearer token for HTTP comes from --token-file or MCPCTL_TOKEN, never
from a flag value.

--record DIR appends every tools/call, one file per server start
(DIR/calls-<UTC start>-<pid>-<random>.jsonl, a new file; DIR must be
yours or root's and not writable by its group or others), as mcpctl
fixture JSON Lines {"tool","arguments","generation","expect"} that replay
and diff --usage read. Values of members named by the config's
record.redact (names, or JSON Pointers starting with /) and of members
whose name looks like a secret (a word token, password, passphrase,
secret, api key, private key, credential, cookie, bearer or
authorization, plural or with digits too: refresh_tokens, apiKeys,
token2, github:token) are written as "[redacted]". Recording never blocks
or fails a call: when the writer falls behind, records are dropped and
counted in /metrics.

Each exec handler call runs in a process group of its own, killed when the
command exits (a background child cannot hold the call open) and when the
shutdown timeout passes. At most --exec-concurrency calls of exec tools run
at once (and at most a tool's exec.concurrency, default 8, of that tool);
--exec-queue more wait, within the tool's timeout; a call beyond is an
isError result saying the server is busy. Over every transport and
handler (upstream tools too), at most --max-calls tools/call requests are
answered at once (1024); one more is an isError result at once, counted
in /status and /metrics.

With --pin-sessions, each session (stdio, or stateful HTTP at 2025-11-25
and earlier) keeps listing and calling the tools that were live when it
initialized, until it ends or --pin-ttl passes; then it moves to the live
tools and gets one list_changed. Stateless HTTP and 2026-07-28 clients are
never pinned (that revision forbids per-connection tool lists; facades
carry compatibility there).`

const serveExample = `  mcpctl serve mcpctl.serve.yaml
  mcpctl serve --config mcpctl.serve.yaml
  mcpctl serve --http 127.0.0.1:8931 --admin 127.0.0.1:8932 mcpctl.serve.yaml
  MCPCTL_TOKEN=… mcpctl serve --http 0.0.0.0:8931 --allow-origin https://app.example.com mcpctl.serve.yaml
  mcpctl serve --http :8931 --stateless mcpctl.serve.yaml   # the 2026-07-28 sessionless mode
  mcpctl serve --record recorded/ mcpctl.serve.yaml && mcpctl replay recorded/ --against mcpctl.serve.yaml
  mcpctl serve --http :8931 --pin-sessions --pin-ttl 30m mcpctl.serve.yaml`

// configArg sets config from the CONFIG argument, given either as the
// argument or with --config, once.
func configArg(args []string, config *string) error {
	switch {
	case len(args) == 1 && *config != "":
		return usageErrorf("give the config once: as an argument or with --config")
	case len(args) == 1:
		*config = args[0]
	case *config == "":
		return usageErrorf("serve needs a config file: mcpctl serve CONFIG (or --config CONFIG)")
	}
	return nil
}

// addServeFlags declares serve's flags, filling opts.
func addServeFlags(c *cobra.Command, opts *serveOptions) {
	f := c.Flags()
	f.StringVar(&opts.Config, "config", "", "the serve config (YAML or JSON); the same as the CONFIG argument")
	f.StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on ADDR (HOST:PORT; a missing host binds 127.0.0.1) instead of stdio")
	f.BoolVar(&opts.Stateless, "stateless", false, "with --http: serve without sessions (the 2026-07-28 revision's mode)")
	f.StringVar(&opts.Admin, "admin", "", "serve /healthz, /readyz, /status, /metrics, POST /reload, /approve and /reject on ADDR (beyond loopback: with --admin-token-file)")
	f.BoolVar(&opts.AllowBreaking, "allow-breaking", false, "publish candidates the gate would refuse (logged as a warning at every such publish)")
	f.DurationVar(&opts.Debounce, "debounce", serve.DefaultDebounce, "quiet period after a config change before reloading; each change restarts it")
	f.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "on SIGTERM/SIGINT, how long in-flight calls may finish (a second signal stops at once)")
	f.StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "with --http: an Origin (scheme://host[:port]) browsers may call from; repeatable; others get 403")
	f.StringVar(&opts.TokenFile, "token-file", "", "with --http: file holding the bearer token clients must send (else MCPCTL_TOKEN)")
	f.Int64Var(&opts.MaxBody, "max-body", serve.DefaultMaxBodyBytes, "with --http: request body limit in bytes")
	f.StringVar(&opts.LogFormat, "log-format", "auto", "log format: auto (text on a terminal, JSON otherwise), text or json")
	f.StringVar(&opts.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	completeValues(c, "log-format", "auto", "text", "json")
	completeValues(c, "log-level", "debug", "info", "warn", "error")
	f.BoolVar(&opts.NoWatch, "no-watch", false, "do not watch the config (reload with SIGHUP or POST /reload only)")
	f.StringVar(&opts.Record, "record", "", "append every tools/call as an mcpctl fixture line to a file in `DIR` (created 0700), secrets redacted")
	f.BoolVar(&opts.PinSessions, "pin-sessions", false, "keep each session (stdio, stateful HTTP; not 2026-07-28) on the tools live when it initialized, until it ends or --pin-ttl passes")
	f.DurationVar(&opts.PinTTL, "pin-ttl", serve.DefaultPinTTL, "with --pin-sessions: how long a session stays pinned before it moves to the live tools and is notified")
	f.IntVar(&opts.ExecConcurrency, "exec-concurrency", handler.DefaultExecConcurrency, "how many exec handler commands may run at once (a tool's own bound is its exec concurrency key)")
	f.IntVar(&opts.ExecQueue, "exec-queue", handler.DefaultExecQueue, "how many exec calls may wait for a slot; beyond, a call is an error result at once")
	f.IntVar(&opts.MaxCalls, "max-calls", serve.DefaultMaxCalls, "the most tools/call requests answered at once, over every transport; beyond, a call is an error result at once")
	f.DurationVar(&opts.SessionTimeout, "session-timeout", serve.DefaultSessionTimeout, "with --http: close a stateful session idle this long")
	f.IntVar(&opts.MaxSessions, "max-sessions", serve.DefaultMaxSessions, "with --http: the most stateful sessions open at once; more get 503")
	f.DurationVar(&opts.ReadHeaderTO, "read-header-timeout", serve.DefaultReadHeaderTimeout, "HTTP and admin listeners: time to read a request's headers")
	f.DurationVar(&opts.ReadTO, "read-timeout", serve.DefaultReadTimeout, "HTTP and admin listeners: time to read a request's body")
	f.DurationVar(&opts.IdleTO, "idle-timeout", serve.DefaultIdleTimeout, "HTTP and admin listeners: how long a keep-alive connection waits for its next request")
	f.StringVar(&opts.AdminTokenFile, "admin-token-file", "", "with --admin: file holding the bearer token /status, /metrics, POST /reload, /approve and /reject need")
	f.StringVar(&opts.State, "state", "", "keep the gate's memory in `DIR` (created 0700): published contracts, config bundles, a journal of decisions, pending candidates, usage counters")
	f.Int64Var(&opts.MaxFileSize, "max-file-size", serve.DefaultMaxFileSize, "largest config or $file include read, in bytes (only regular files are read)")
}

// checkServeFlags refuses flags that would be silently ignored or
// meaningless (a usage error, exit 2); changed reports whether a flag was
// given. The first rule broken, in serveFlagRules' order, is the error.
func checkServeFlags(changed func(string) bool, opts serveOptions) error {
	if opts.HTTP == "" {
		for _, f := range []string{"stateless", "allow-origin", "token-file", "max-body", "session-timeout", "max-sessions"} {
			if changed(f) {
				return usageErrorf("--%s needs --http", f)
			}
		}
	}
	for _, o := range opts.AllowOrigins {
		if !isOrigin(o) {
			return usageErrorf("--allow-origin %q: want an origin, scheme://host[:port] (http or https)", o)
		}
	}
	for _, r := range serveFlagRules(changed, opts) {
		if r.broken {
			return r.err
		}
	}
	return nil
}

// isOrigin reports whether o is an http or https origin,
// scheme://host[:port] (a trailing slash allowed).
func isOrigin(o string) bool {
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		strings.TrimSuffix(u.Path, "/") == "" && u.RawQuery == "" && u.Fragment == ""
}

// flagRule is one rule of checkServeFlags: broken, err is the usage error.
type flagRule struct {
	broken bool
	err    error
}

// serveFlagRules are serve's rules on flag values and pairs, in the order
// they are checked.
func serveFlagRules(changed func(string) bool, opts serveOptions) []flagRule {
	stateless := "have no effect with --stateless: stateless HTTP has no sessions"
	return []flagRule{
		{opts.MaxBody <= 0, usageErrorf("--max-body must be a positive number of bytes, got %d", opts.MaxBody)},
		{opts.MaxFileSize <= 0, usageErrorf("--max-file-size must be a positive number of bytes, got %d", opts.MaxFileSize)},
		{opts.ShutdownTimeout <= 0, usageErrorf("--shutdown-timeout must be positive, got %s", opts.ShutdownTimeout)},
		{opts.Debounce <= 0, usageErrorf("--debounce must be positive, got %s", opts.Debounce)},
		{changed("admin-token-file") && opts.Admin == "", usageErrorf("--admin-token-file needs --admin")},
		{changed("record") && opts.Record == "", usageErrorf("--record needs a folder (it was given empty)")},
		{changed("pin-ttl") && !opts.PinSessions, usageErrorf("--pin-ttl needs --pin-sessions")},
		{opts.PinTTL <= 0, usageErrorf("--pin-ttl must be positive, got %s", opts.PinTTL)},
		{opts.ExecConcurrency <= 0 || opts.ExecQueue <= 0,
			usageErrorf("--exec-concurrency and --exec-queue must be positive, got %d and %d", opts.ExecConcurrency, opts.ExecQueue)},
		{opts.MaxCalls <= 0, usageErrorf("--max-calls must be positive, got %d", opts.MaxCalls)},
		{opts.SessionTimeout <= 0 || opts.ReadHeaderTO <= 0 || opts.ReadTO <= 0 || opts.IdleTO <= 0,
			usageErrorf("--session-timeout, --read-header-timeout, --read-timeout and --idle-timeout must be positive")},
		{opts.MaxSessions <= 0, usageErrorf("--max-sessions must be positive, got %d", opts.MaxSessions)},
		{opts.Stateless && (changed("session-timeout") || changed("max-sessions")),
			usageErrorf("--session-timeout and --max-sessions %s", stateless)},
		{opts.PinSessions && opts.Stateless, usageErrorf("--pin-sessions has no effect with --stateless: stateless HTTP has no sessions to pin")},
	}
}

// stateHistory is how many published contracts serve --state keeps (the
// most gate.transitive can use).
const stateHistory = 16

func runServe(ctx context.Context, s *Streams, opts serveOptions) error {
	log, err := newLogger(s.ErrOut, opts.LogFormat, opts.LogLevel)
	if err != nil {
		return err
	}
	ro, err := listenOptions(opts, log)
	if err != nil {
		return err
	}
	tp, flushTraces, err := tracerProvider(ctx)
	if err != nil {
		return err
	}
	defer func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := flushTraces(fctx); err != nil {
			log.Warn("could not send the last traces", "error", err)
		}
	}()
	sopts := serverOptions(opts, log)
	if tp != nil {
		sopts.TracerProvider = tp
	}
	if opts.State != "" {
		st, err := openState(opts.State, log)
		if err != nil {
			return err
		}
		defer func() {
			if err := st.Close(); err != nil {
				log.Warn("state: cannot close", "error", err)
			}
		}()
		sopts.State = st
	}
	srv, err := serve.New(ctx, sopts)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx)) {
		log.Info("stopped while starting") // SIGTERM/SIGINT: a stop, as during Run
		return nil
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	if opts.AllowBreaking {
		log.Warn("--allow-breaking: the gate will let breaking candidates through")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopSignals func()
	ro.Reload, ro.Force, stopSignals = handleSignals(ctx, log)
	defer stopSignals()
	ro.Stdin, ro.Stdout = s.In, s.Out
	return srv.Run(ctx, ro)
}

// listenOptions are the RunOptions of serve's flags: the listeners and
// their tokens, the watch, the shutdown timeout.
func listenOptions(opts serveOptions, log *slog.Logger) (serve.RunOptions, error) {
	ro := serve.RunOptions{Watch: !opts.NoWatch, ShutdownTimeout: opts.ShutdownTimeout}
	var err error
	if opts.HTTP != "" {
		if ro.HTTPAddr, ro.HTTP, err = httpListen(opts, log); err != nil {
			return ro, err
		}
	}
	ro.HTTP.ReadHeaderTimeout, ro.HTTP.ReadTimeout, ro.HTTP.IdleTimeout = opts.ReadHeaderTO, opts.ReadTO, opts.IdleTO
	if opts.Admin != "" {
		if ro.AdminAddr, ro.Admin, err = adminListen(opts); err != nil {
			return ro, err
		}
	}
	return ro, nil
}

// httpListen is the address and options of --http.
func httpListen(opts serveOptions, log *slog.Logger) (string, serve.HTTPOptions, error) {
	addr, err := serve.ListenAddr(opts.HTTP)
	if err != nil {
		return "", serve.HTTPOptions{}, usageErrorf("--http: %v", err)
	}
	token, err := readToken(opts.TokenFile)
	if err != nil {
		return "", serve.HTTPOptions{}, err
	}
	if !serve.IsLoopback(addr) && token == "" {
		log.Warn("serving HTTP beyond loopback without a bearer token (set --token-file or MCPCTL_TOKEN)", "addr", addr)
	}
	return addr, serve.HTTPOptions{Stateless: opts.Stateless, AllowedOrigins: opts.AllowOrigins, Token: token, MaxBodyBytes: opts.MaxBody,
		SessionTimeout: opts.SessionTimeout, MaxSessions: opts.MaxSessions}, nil
}

// adminListen is the address and options of --admin; beyond loopback it
// needs --admin-token-file.
func adminListen(opts serveOptions) (string, serve.AdminOptions, error) {
	addr, err := serve.ListenAddr(opts.Admin)
	if err != nil {
		return "", serve.AdminOptions{}, usageErrorf("--admin: %v", err)
	}
	if !serve.IsLoopback(addr) && opts.AdminTokenFile == "" {
		return "", serve.AdminOptions{}, usageErrorf("--admin %s is beyond loopback: set --admin-token-file too (or bind 127.0.0.1:PORT, [::1]:PORT or localhost:PORT)", opts.Admin)
	}
	var ao serve.AdminOptions
	if opts.AdminTokenFile != "" {
		if ao.Token, err = readTokenFile("--admin-token-file", opts.AdminTokenFile); err != nil {
			return "", ao, err
		}
	}
	return addr, ao, nil
}

// serverOptions are the serve.Options of serve's flags (without the
// tracer and the state).
func serverOptions(opts serveOptions, log *slog.Logger) serve.Options {
	return serve.Options{
		ConfigPath:    opts.Config,
		Logger:        log,
		AllowBreaking: opts.AllowBreaking,
		Debounce:      opts.Debounce,
		RecordDir:     opts.Record,
		PinSessions:   opts.PinSessions,
		PinTTL:        opts.PinTTL,

		ExecConcurrency: opts.ExecConcurrency,
		ExecQueue:       opts.ExecQueue,
		MaxCalls:        opts.MaxCalls,
		MaxFileSize:     opts.MaxFileSize,
	}
}

// openState opens --state DIR and logs its warnings.
func openState(dir string, log *slog.Logger) (*state.State, error) {
	st, err := state.Open(dir, state.Options{History: stateHistory, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--state: %w", err)
	}
	for _, w := range st.Warnings() {
		log.Warn("state", "warning", w)
	}
	return st, nil
}

// handleSignals turns the signals into RunOptions' Reload (one receive
// per SIGHUP while ctx lasts) and Force (closed at the second SIGINT or
// SIGTERM: the first ends Main's context and starts the drain); stop
// stops listening (serving ended).
func handleSignals(ctx context.Context, log *slog.Logger) (reload, force <-chan struct{}, stop func()) {
	stops := make(chan os.Signal, 2)
	signal.Notify(stops, os.Interrupt, syscall.SIGTERM)
	finished := make(chan struct{})
	force = forceOnSecondSignal(stops, finished, log)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	return reloadOn(ctx, hup), force, func() {
		signal.Stop(hup)
		close(finished)
		signal.Stop(stops)
	}
}

// reloadOn sends one receive per signal read from sigs until ctx ends.
func reloadOn(ctx context.Context, sigs <-chan os.Signal) <-chan struct{} {
	reload := make(chan struct{})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
				select {
				case reload <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return reload
}

// forceOnSecondSignal returns a channel closed at the second signal read
// from sigs (which gets every SIGINT and SIGTERM): the first one starts
// the graceful shutdown, the second forces it. It stops reading when
// finished is closed (serving ended).
func forceOnSecondSignal(sigs <-chan os.Signal, finished <-chan struct{}, log *slog.Logger) <-chan struct{} {
	force := make(chan struct{})
	go func() {
		seen := 0
		for {
			select {
			case sig := <-sigs:
				if seen++; seen == 2 {
					log.Warn("second signal: stopping now, without waiting for in-flight calls", "signal", sig.String())
					close(force)
					return
				}
			case <-finished:
				return
			}
		}
	}()
	return force
}

// readToken reads the bearer token from a file, or MCPCTL_TOKEN.
func readToken(file string) (string, error) {
	if file != "" {
		return readTokenFile("--token-file", file)
	}
	return strings.TrimSpace(os.Getenv("MCPCTL_TOKEN")), nil
}

// readTokenFile reads a token from the file given to flag.
func readTokenFile(flag, file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usageErrorf("%s: %v", flag, err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", usageErrorf("%s %s is empty", flag, file)
	}
	return tok, nil
}

// newLogger makes the slog logger for serve: text on a terminal, JSON
// otherwise, unless format says.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, usageErrorf("--log-level: want debug, info, warn or error, got %q", level)
	}
	ho := &slog.HandlerOptions{Level: lvl, ReplaceAttr: durationString}
	switch format {
	case "auto":
		if IsTerminal(w) {
			return slog.New(slog.NewTextHandler(w, ho)), nil
		}
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, ho)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	}
	return nil, usageErrorf("--log-format: want auto, text or json, got %q", format)
}

// durationString writes a time.Duration attribute as its string ("10s")
// instead of slog's JSON default, an integer of nanoseconds.
func durationString(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}
