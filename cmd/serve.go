package cmd

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/serve"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

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
}

func newServeCmd(s *Streams) *cobra.Command {
	opts := serveOptions{}
	c := &cobra.Command{
		Use:   "serve (CONFIG | --config CONFIG)",
		Short: "Serve the tools of a config over MCP, hot-reloading it behind a compatibility gate",
		Long: `Serve the tools of a serve config (YAML or JSON) over MCP: stdio by default,
streamable HTTP with --http. The config is watched; every change is built
as a candidate off to the side, diffed against the live tool set and
published with one atomic swap only when it is not breaking, or when every
breaking finding is covered by a gate.allow entry (or --allow-breaking).
Sessions get notifications/tools/list_changed when the tool contract
changed. SIGHUP and POST /reload on the admin listener reload too.

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
isError result saying the server is busy.

With --pin-sessions, each session (stdio, or stateful HTTP at 2025-11-25
and earlier) keeps listing and calling the tools that were live when it
initialized, until it ends or --pin-ttl passes; then it moves to the live
tools and gets one list_changed. Stateless HTTP and 2026-07-28 clients are
never pinned (that revision forbids per-connection tool lists; facades
carry compatibility there).`,
		Example: `  mcpctl serve mcpctl.serve.yaml
  mcpctl serve --config mcpctl.serve.yaml
  mcpctl serve --http 127.0.0.1:8931 --admin 127.0.0.1:8932 mcpctl.serve.yaml
  MCPCTL_TOKEN=… mcpctl serve --http 0.0.0.0:8931 --allow-origin https://app.example.com mcpctl.serve.yaml
  mcpctl serve --http :8931 --stateless mcpctl.serve.yaml   # the 2026-07-28 sessionless mode
  mcpctl serve --record recorded/ mcpctl.serve.yaml && mcpctl replay recorded/ --against mcpctl.serve.yaml
  mcpctl serve --http :8931 --pin-sessions --pin-ttl 30m mcpctl.serve.yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && opts.Config != "":
				return usageErrorf("give the config once: as an argument or with --config")
			case len(args) == 1:
				opts.Config = args[0]
			case opts.Config == "":
				return usageErrorf("serve needs a config file: mcpctl serve CONFIG (or --config CONFIG)")
			}
			if err := checkServeFlags(c.Flags().Changed, opts); err != nil {
				return err
			}
			return runServe(c.Context(), s, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Config, "config", "", "the serve config (YAML or JSON); the same as the CONFIG argument")
	f.StringVar(&opts.HTTP, "http", "", "serve streamable HTTP on ADDR (HOST:PORT; a missing host binds 127.0.0.1) instead of stdio")
	f.BoolVar(&opts.Stateless, "stateless", false, "with --http: serve without sessions (the 2026-07-28 revision's mode)")
	f.StringVar(&opts.Admin, "admin", "", "serve /healthz, /readyz, /status, /metrics and POST /reload on ADDR (loopback only)")
	f.BoolVar(&opts.AllowBreaking, "allow-breaking", false, "publish candidates the gate would refuse (logged as a warning at every such publish)")
	f.DurationVar(&opts.Debounce, "debounce", serve.DefaultDebounce, "quiet period after a config change before reloading; each change restarts it")
	f.DurationVar(&opts.ShutdownTimeout, "shutdown-timeout", 10*time.Second, "on SIGTERM/SIGINT, how long in-flight calls may finish")
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
	f.IntVar(&opts.ExecConcurrency, "exec-concurrency", serve.DefaultExecConcurrency, "how many exec handler commands may run at once (a tool's own bound is its exec concurrency key)")
	f.IntVar(&opts.ExecQueue, "exec-queue", serve.DefaultExecQueue, "how many exec calls may wait for a slot; beyond, a call is an error result at once")
	return c
}

// checkServeFlags refuses flags that would be silently ignored or
// meaningless (a usage error, exit 2); changed reports whether a flag was
// given.
func checkServeFlags(changed func(string) bool, opts serveOptions) error {
	if opts.HTTP == "" {
		for _, f := range []string{"stateless", "allow-origin", "token-file", "max-body"} {
			if changed(f) {
				return usageErrorf("--%s needs --http", f)
			}
		}
	}
	for _, o := range opts.AllowOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return usageErrorf("--allow-origin %q: want an origin, scheme://host[:port] (http or https)", o)
		}
	}
	switch {
	case opts.MaxBody <= 0:
		return usageErrorf("--max-body must be a positive number of bytes, got %d", opts.MaxBody)
	case opts.ShutdownTimeout <= 0:
		return usageErrorf("--shutdown-timeout must be positive, got %s", opts.ShutdownTimeout)
	case opts.Debounce <= 0:
		return usageErrorf("--debounce must be positive, got %s", opts.Debounce)
	case changed("record") && opts.Record == "":
		return usageErrorf("--record needs a folder (it was given empty)")
	case changed("pin-ttl") && !opts.PinSessions:
		return usageErrorf("--pin-ttl needs --pin-sessions")
	case opts.PinTTL <= 0:
		return usageErrorf("--pin-ttl must be positive, got %s", opts.PinTTL)
	case opts.ExecConcurrency <= 0 || opts.ExecQueue <= 0:
		return usageErrorf("--exec-concurrency and --exec-queue must be positive, got %d and %d", opts.ExecConcurrency, opts.ExecQueue)
	case opts.PinSessions && opts.Stateless:
		return usageErrorf("--pin-sessions has no effect with --stateless: stateless HTTP has no sessions to pin")
	}
	return nil
}

func runServe(ctx context.Context, s *Streams, opts serveOptions) error {
	log, err := newLogger(s.ErrOut, opts.LogFormat, opts.LogLevel)
	if err != nil {
		return err
	}
	var httpOpts serve.HTTPOptions
	var httpAddr, adminAddr string
	if opts.HTTP != "" {
		if httpAddr, err = serve.ListenAddr(opts.HTTP); err != nil {
			return usageErrorf("--http: %v", err)
		}
		token, err := readToken(opts.TokenFile)
		if err != nil {
			return err
		}
		httpOpts = serve.HTTPOptions{Stateless: opts.Stateless, AllowedOrigins: opts.AllowOrigins, Token: token, MaxBodyBytes: opts.MaxBody}
		if !serve.IsLoopback(httpAddr) && token == "" {
			log.Warn("serving HTTP beyond loopback without a bearer token (set --token-file or MCPCTL_TOKEN)", "addr", httpAddr)
		}
	}
	if opts.Admin != "" {
		if adminAddr, err = serve.ListenAddr(opts.Admin); err != nil {
			return usageErrorf("--admin: %v", err)
		}
		if !serve.IsLoopback(adminAddr) {
			return usageErrorf("--admin must be a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT), got %q", opts.Admin)
		}
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
	sopts := serve.Options{
		ConfigPath:    opts.Config,
		Logger:        log,
		AllowBreaking: opts.AllowBreaking,
		Debounce:      opts.Debounce,
		RecordDir:     opts.Record,
		PinSessions:   opts.PinSessions,
		PinTTL:        opts.PinTTL,

		ExecConcurrency: opts.ExecConcurrency,
		ExecQueue:       opts.ExecQueue,
	}
	if tp != nil {
		sopts.TracerProvider = tp
	}
	srv, err := serve.New(ctx, sopts)
	if err != nil {
		return err
	}
	defer srv.Close()
	if opts.AllowBreaking {
		log.Warn("--allow-breaking: the gate will let breaking candidates through")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{})
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				select {
				case reload <- struct{}{}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return srv.Run(ctx, serve.RunOptions{
		HTTPAddr:        httpAddr,
		HTTP:            httpOpts,
		Stdin:           s.In,
		Stdout:          s.Out,
		AdminAddr:       adminAddr,
		Watch:           !opts.NoWatch,
		Reload:          reload,
		ShutdownTimeout: opts.ShutdownTimeout,
	})
}

// readToken reads the bearer token from a file, or MCPCTL_TOKEN.
func readToken(file string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", usageErrorf("--token-file: %v", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", usageErrorf("--token-file %s is empty", file)
		}
		return tok, nil
	}
	return strings.TrimSpace(os.Getenv("MCPCTL_TOKEN")), nil
}

// newLogger makes the slog logger for serve: text on a terminal, JSON
// otherwise, unless format says.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, usageErrorf("--log-level: want debug, info, warn or error, got %q", level)
	}
	ho := &slog.HandlerOptions{Level: lvl}
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
