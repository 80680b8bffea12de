package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/httptransport"
	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/mcpctl/mcpctl/toolset"
)

// Options configures one upstream. Exactly one of Command, URL,
// Transport and Pipe is set.
type Options struct {
	// Name names the upstream in errors, logs and Status.
	Name string
	// Command is the argv of a stdio server (the program already
	// resolved), started without a shell; Env is its whole environment
	// (NAME=VALUE) and Dir its working folder.
	Command []string
	Env     []string
	Dir     string
	// URL is a streamable HTTP server; Headers are sent with every
	// request.
	URL     string
	Headers http.Header
	// Transport, when set, makes the transport of each connection (tests:
	// in-memory transports).
	Transport func() mcp.Transport
	// Pipe, when set, opens a line-delimited byte stream to the server
	// for each connection, spoken as a stdio server's (tests: one end of a
	// net.Pipe), raw calls included (see CallRaw).
	Pipe func() (io.ReadWriteCloser, error)
	// ProtocolVersion is the MCP revision asked for in initialize:
	// "" asks for mcpclient.PinnedProtocolVersion first and, when the server
	// only speaks a newer one, the go-sdk's newest (as mcpclient.LoadLive
	// does); LatestProtocol asks for the go-sdk's newest at once.
	ProtocolVersion string
	// Refresh polls tools/list this often beside list_changed (0: never).
	Refresh time.Duration
	// Timeout bounds one request to the running server: a tools/call, a
	// tools/list on list_changed, Refresh or Relist (0: DefaultTimeout).
	Timeout time.Duration
	// StartTimeout bounds one start or restart: starting the process or
	// connecting, initialize and the first tools/list (0:
	// DefaultStartTimeout). It is apart from Timeout: a server may take
	// longer to start (an npx download, a cold runtime) than a call may
	// take.
	StartTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before a restart
	// (0: DefaultMinBackoff, DefaultMaxBackoff); it doubles after each
	// failed attempt.
	MinBackoff, MaxBackoff time.Duration
	// OnList, when set, is called after a tools/list whose bytes differ
	// from the previous one (never during Start), from the upstream's own
	// goroutine: the gateway starts a reload.
	OnList func()
	// Logger receives the upstream's logs; nil discards them.
	Logger *slog.Logger
}

// Defaults of Options.
const (
	DefaultTimeout      = 60 * time.Second
	DefaultStartTimeout = 60 * time.Second
	DefaultMinBackoff   = 100 * time.Millisecond
	DefaultMaxBackoff   = 30 * time.Second
)

// LatestProtocol is Options.ProtocolVersion for the go-sdk's newest
// revision (2026-07-28 in go-sdk v1.8.0).
const LatestProtocol = "latest"

// The states of an upstream (Status.State).
const (
	StateConnected  = "connected"
	StateRestarting = "restarting"
	StateClosed     = "closed"
)

// ErrUnavailable is wrapped by the error of a call made while the upstream
// is down (crashed and restarting, or closed).
var ErrUnavailable = errors.New("upstream unavailable")

// ErrTimeout is wrapped by the error of a call the upstream did not answer
// within Options.Timeout.
var ErrTimeout = errors.New("upstream timeout")

// Error is a failed call or start of one upstream; it wraps ErrUnavailable,
// ErrTimeout or the cause.
type Error struct {
	Name string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("upstream %q: %s", e.Name, e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// Status is what /status and metrics show of an upstream.
type Status struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Restarts int64  `json:"restarts"`
	// Tools is how many tools the upstream lists (before include/exclude).
	Tools int `json:"tools"`
	// Served is how many of them the live generation serves (after
	// include/exclude); set by package serve.
	Served int `json:"served"`
	// LastError is the latest connection or listing failure, "" when none.
	LastError string `json:"lastError,omitempty"`
}

// Upstream is one upstream connection. Its methods are safe for concurrent
// use.
type Upstream struct {
	opts   Options
	log    *slog.Logger
	client *mcp.Client
	base   *http.Transport

	mu      sync.Mutex
	conn    *conn // nil while down
	tools   *toolset.Set
	raw     string // the tools' bytes, to tell a changed listing
	state   string
	lastErr error
	secrets []string // hidden in errors (see redact)

	// listMu serializes listings (Refresh and the background loop).
	listMu   sync.Mutex
	restarts atomic.Int64
	// newest is set once the server refused PinnedProtocolVersion: every
	// later connection asks for the go-sdk's newest revision.
	newest   atomic.Bool
	kick     chan struct{}
	progress sync.Map // progress token → *progressRelay
	tokens   atomic.Uint64
	// tokenPrefix starts the progress tokens of calls: random, so that a
	// server cannot guess another call's token.
	tokenPrefix string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	// bg is the work a call leaves running once its caller is answered
	// (goBackground); Close waits for it. bgClosed, set by Close under
	// bgMu, refuses more.
	bgMu     sync.Mutex
	bgClosed bool
	bg       sync.WaitGroup
}

// Start connects, initializes and reads the tool list (all within
// Options.StartTimeout), then keeps the connection in the background until
// Close. A failure to start is an *Error and leaves nothing running.
func Start(ctx context.Context, opts Options) (*Upstream, error) {
	u := newUpstream(opts)
	c, set, err := u.connectInTime(ctx)
	if err != nil {
		u.cancel()
		u.base.CloseIdleConnections()
		return nil, &Error{Name: u.opts.Name, Msg: "cannot start: " + err.Error(), Err: err}
	}
	u.up(c, set)
	go u.run()
	return u, nil
}

func newUpstream(opts Options) *Upstream {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = DefaultMinBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	u := &Upstream{opts: opts, log: log.With("upstream", opts.Name), kick: make(chan struct{}, 1), done: make(chan struct{}), secrets: secrets(opts), tokenPrefix: mcpclient.RandomPrefix()}
	u.newest.Store(opts.ProtocolVersion == LatestProtocol)
	u.base = httptransport.New()
	u.base.MaxIdleConnsPerHost = idleConnsPerUpstream
	u.ctx, u.cancel = context.WithCancel(context.Background())
	u.client = mcp.NewClient(&mcp.Implementation{Name: "mcpctl-gateway", Version: "1"}, &mcp.ClientOptions{
		Logger:                      u.log,
		Capabilities:                &mcp.ClientCapabilities{},
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { u.Relist() },
		ProgressNotificationHandler: u.relayProgress,
	})
	return u
}

// Name returns Options.Name.
func (u *Upstream) Name() string { return u.opts.Name }

// Tools returns the latest tool list read (never nil after Start).
func (u *Upstream) Tools() *toolset.Set {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools
}

// Status returns the upstream's state.
func (u *Upstream) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	st := Status{Name: u.opts.Name, State: u.state, Restarts: u.restarts.Load()}
	if u.tools != nil {
		st.Tools = len(u.tools.Tools)
	}
	if u.lastErr != nil {
		st.LastError = u.lastErr.Error()
	}
	return st
}

// Relist asks the background loop to read tools/list again (as the
// server's list_changed does); it does not wait.
func (u *Upstream) Relist() {
	select {
	case u.kick <- struct{}{}:
	default:
	}
}

// Refresh reads tools/list now, within Options.Timeout (SIGHUP and POST
// /reload of the gateway), without calling OnList: the caller reloads
// anyway. While the server is down it returns an *Error wrapping
// ErrUnavailable and Tools stays the last list read.
func (u *Upstream) Refresh(ctx context.Context) error {
	c := u.current()
	if c == nil {
		return u.unavailable()
	}
	ctx, cancel := context.WithTimeout(ctx, u.opts.Timeout)
	defer cancel()
	_, err := u.list(ctx, c)
	return err
}

// Close stops the background loop and the server (stdio) or the session
// (HTTP) and waits for them, and for what calls left running
// (goBackground). It is idempotent.
func (u *Upstream) Close() {
	u.cancel()
	<-u.done
	u.bgMu.Lock()
	u.bgClosed = true
	u.bgMu.Unlock()
	u.bg.Wait()
}

// goBackground runs f on a goroutine of its own that Close waits for, and
// reports whether it did: once Close is waiting it does not, and the
// caller runs f itself.
func (u *Upstream) goBackground(f func()) bool {
	u.bgMu.Lock()
	defer u.bgMu.Unlock()
	if u.bgClosed {
		return false
	}
	u.bg.Add(1)
	go func() {
		defer u.bg.Done()
		f()
	}()
	return true
}
