package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RunOptions says which transports Run serves.
type RunOptions struct {
	// HTTPAddr serves streamable HTTP there (see ListenAddr); empty serves
	// stdio on Stdin/Stdout.
	HTTPAddr string
	HTTP     HTTPOptions
	Stdin    io.Reader
	Stdout   io.Writer
	// AdminAddr serves AdminHandler(Admin) there; beyond loopback it needs
	// Admin.Token (ErrAdminToken otherwise).
	AdminAddr string
	Admin     AdminOptions
	// Watch reloads on config changes (default in the CLI).
	Watch bool
	// Reload triggers a reload per receive (SIGHUP in the CLI).
	Reload <-chan struct{}
	// ShutdownTimeout bounds how long in-flight calls may finish after ctx
	// ends; 0 means 10 s.
	ShutdownTimeout time.Duration
	// Force, once closed during the shutdown (a second SIGINT or SIGTERM
	// in the CLI), ends it at once: in-flight calls and unwritten answers
	// are abandoned.
	Force <-chan struct{}
	// OnListen, when set, is told each listener's actual address ("http"
	// or "admin").
	OnListen func(kind, addr string)
}

// Run serves until ctx ends (SIGTERM/SIGINT in the CLI) or, on stdio, until
// the client closes standard input and every request read before has been
// answered (up to ShutdownTimeout; see drainTransport). Then it stops
// accepting, lets in-flight calls finish up to ShutdownTimeout, closes
// sessions and returns nil. A blocked stdout never blocks it: nothing on the
// shutdown path waits on a write without a deadline.
func (s *Server) Run(ctx context.Context, o RunOptions) error {
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	runCtx, stopBG := context.WithCancel(ctx)
	defer stopBG()
	r := &run{s: s, o: o, ctx: runCtx}
	if err := r.listenAdmin(); err != nil {
		return err
	}
	r.startBackground()
	done, err := r.startTransport(ctx)
	if err != nil {
		r.closeServers()
		return err
	}
	s.SetReady(true)
	<-done
	r.shutdown(stopBG)
	return nil
}

// run is one Run: its options, listeners, stdio session and background
// goroutines.
type run struct {
	s   *Server
	o   RunOptions
	ctx context.Context // ends when Run's context does, or at shutdown
	bg  sync.WaitGroup

	servers    []*http.Server
	stdio      *mcp.ServerSession
	stdioConn  *drainTransport
	stdioEnded <-chan struct{}
}

// goBG runs f in a background goroutine the shutdown waits for.
func (r *run) goBG(f func()) {
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		f()
	}()
}

// listen serves h on addr, a listener of kind "http" or "admin".
func (r *run) listen(kind, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s listener: %w", kind, err)
	}
	srv := newListenerServer(h, r.o.HTTP)
	if kind == "admin" {
		// No admin request has a body worth waiting for, nor a stream.
		srv.ReadTimeout = r.o.HTTP.withDefaults().ReadTimeout
	}
	r.servers = append(r.servers, srv)
	if r.o.OnListen != nil {
		r.o.OnListen(kind, ln.Addr().String())
	}
	r.s.log.Info("listening", "transport", kind, "addr", ln.Addr().String())
	r.goBG(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.s.log.Error("listener failed", "transport", kind, "error", err)
		}
	})
	return nil
}

func (r *run) closeServers() {
	for _, srv := range r.servers {
		_ = srv.Close()
	}
}

// listenAdmin starts the admin listener, if one is asked for; beyond
// loopback it needs a token (ErrAdminToken).
func (r *run) listenAdmin() error {
	if r.o.AdminAddr == "" {
		return nil
	}
	if !IsLoopback(r.o.AdminAddr) && r.o.Admin.Token == "" {
		return fmt.Errorf("admin listener %s: %w", r.o.AdminAddr, ErrAdminToken)
	}
	return r.listen("admin", r.o.AdminAddr, r.s.AdminHandler(r.o.Admin))
}

// startBackground starts what runs beside the transports: the config
// watch, the state's usage flushes and the reloads asked for on o.Reload.
func (r *run) startBackground() {
	s := r.s
	if r.o.Watch {
		r.goBG(func() {
			if err := s.Watch(r.ctx); err != nil {
				s.log.Error("watching the config failed; reload with SIGHUP or POST /reload", "error", err)
			}
		})
	}
	if s.opts.State != nil {
		r.goBG(func() { s.opts.State.FlushEvery(r.ctx, UsageFlushInterval) })
	}
	if r.o.Reload != nil {
		r.goBG(func() {
			for {
				select {
				case <-r.ctx.Done():
					return
				case <-r.o.Reload:
					s.Reload(r.ctx, "SIGHUP")
				}
			}
		})
	}
}

// startTransport starts streamable HTTP or stdio; it returns the channel
// whose end starts the shutdown: ctx's, or also the stdio session's.
func (r *run) startTransport(ctx context.Context) (<-chan struct{}, error) {
	if r.o.HTTPAddr != "" {
		return ctx.Done(), r.listen("http", r.o.HTTPAddr, r.s.HTTPMux(r.o.HTTP))
	}
	t, fast := r.s.stdioTransport(r.o.Stdin, r.o.Stdout, r.ctx.Done(), r.o)
	ss, err := r.s.mcp.Connect(r.ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("stdio: %w", err)
	}
	fast.attach(ss)
	r.stdio, r.stdioConn = ss, t
	ended := make(chan struct{})
	r.goBG(func() {
		_ = ss.Wait()
		close(ended)
	})
	r.stdioEnded = ended
	return anyDone(ctx.Done(), ended), nil
}

// shutdown stops accepting, drains calls and answers, closes the
// sessions and the listeners, stops the background goroutines (stopBG)
// and flushes the state.
func (r *run) shutdown(stopBG context.CancelFunc) {
	s := r.s
	s.SetReady(false)
	s.draining.Store(true)
	s.log.Info("shutting down: waiting for in-flight calls", "inFlight", s.inflight.count(), "timeout", r.o.ShutdownTimeout)
	deadline, cancel := context.WithTimeout(context.Background(), r.o.ShutdownTimeout)
	defer cancel()
	r.forceOn(deadline, cancel)
	for _, srv := range r.servers {
		srv.SetKeepAlivesEnabled(false)
	}
	if err := s.inflight.wait(deadline); err != nil {
		s.log.Warn("shutdown timeout: abandoning in-flight calls, killing their commands", "inFlight", s.inflight.count())
		s.exec.Kill()
	}
	r.drainAnswers(deadline)
	s.closeSessions(time.Second)
	if r.stdio != nil {
		s.log.Debug("stdio session closed")
	}
	r.closeServers()
	s.baseCancel()
	stopBG()
	r.waitBG(time.Second)
	if s.opts.State != nil {
		if err := s.opts.State.Flush(); err != nil {
			s.log.Warn("state: cannot flush the usage counters", "error", err)
		}
	}
	s.log.Info("stopped")
}

// forceOn ends the shutdown's deadline (cancel) when o.Force closes
// before it.
func (r *run) forceOn(deadline context.Context, cancel context.CancelFunc) {
	if r.o.Force == nil {
		return
	}
	go func() {
		select {
		case <-r.o.Force:
			r.s.log.Warn("shutdown forced: abandoning in-flight calls and unwritten answers", "inFlight", r.s.inflight.count())
			cancel()
		case <-deadline.Done():
		}
	}()
}

// drainAnswers lets the answers out before the sessions close. A call is
// done before the SDK writes its response: HTTP requests may still be
// being answered, stdio requests read and not yet answered. What is left
// is writing, so the wait is short (a second within deadline): a client
// that does not read (a blocked stdout) does not hold up shutdown.
func (r *run) drainAnswers(deadline context.Context) {
	grace, cancelGrace := context.WithTimeout(deadline, time.Second)
	defer cancelGrace()
	if err := r.s.posts.wait(grace); err != nil {
		r.s.log.Warn("shutdown: abandoning HTTP responses not written in time", "requests", r.s.posts.count())
	}
	if r.stdioConn == nil || r.stdioConn.conn == nil {
		return
	}
	answered, n := r.stdioConn.conn.answered()
	select {
	case <-answered:
	case <-r.stdioEnded:
	case <-grace.Done():
		r.s.log.Warn("shutdown: abandoning stdio responses not written in time", "pending", n)
	}
}

// closeSessions closes every session without waiting on a blocked peer
// longer than bound, nor on go-sdk v1.8.0's ServerSession.Close, which
// can hang when a 2026-07-28 client's subscriptions/listen arrived just
// before it: a Close still running after bound is abandoned.
func (s *Server) closeSessions(bound time.Duration) {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		var wg sync.WaitGroup
		for ss := range s.mcp.Sessions() {
			wg.Go(func() { _ = ss.Close() })
		}
		wg.Wait()
	}()
	select {
	case <-closed:
	case <-time.After(bound):
		s.log.Warn("some sessions did not close in time (a blocked client?)")
	}
}

// waitBG waits up to bound for the background goroutines.
func (r *run) waitBG(bound time.Duration) {
	waitBG := make(chan struct{})
	go func() { r.bg.Wait(); close(waitBG) }()
	select {
	case <-waitBG:
	case <-time.After(bound):
	}
}

// UsageFlushInterval is how often Run writes the state's usage counters
// (and once more at shutdown).
const UsageFlushInterval = 30 * time.Second

func anyDone(a, b <-chan struct{}) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		select {
		case <-a:
		case <-b:
		}
		close(c)
	}()
	return c
}

// readCloser and writeCloser adapt the CLI's streams; closing them closes
// nothing (stdin and stdout belong to the process).
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// drainTransport wraps the stdio transport so that the end of standard input
// ends the session only once every request read has been answered. The SDK
// (go-sdk v1.8.0) ends a connection as soon as its Read fails: in-flight
// requests are cancelled and their responses dropped, so
// `printf '…requests…' | mcpctl serve` used to lose them.
type drainTransport struct {
	mcp.Transport
	// stop ends the wait early (Run's context: SIGTERM/SIGINT, or Run
	// returning).
	stop <-chan struct{}
	// conn is the connection Connect made (the SDK connects once); live
	// is the same, for the input's reader (which starts reading inside
	// Connect).
	conn *drainConn
	live atomic.Pointer[drainConn]
	// timeout bounds the wait after the end of input (RunOptions'
	// ShutdownTimeout).
	timeout time.Duration
	log     *slog.Logger
	// inputEnded is the hook of that name (nil: none).
	inputEnded func(unanswered int)
}

// Connect implements [mcp.Transport].
func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &drainConn{
		Connection: c,
		stop:       t.stop,
		timeout:    t.timeout,
		log:        t.log,
		inputEnded: t.inputEnded,
		pending:    make(map[jsonrpc.ID]struct{}),
		streams:    make(map[jsonrpc.ID]struct{}),
		closed:     make(chan struct{}),
		answer:     make(chan struct{}, 1),
	}
	t.live.Store(t.conn)
	return t.conn, nil
}

// session is the connection as frameReader sees it (nil-safe: before
// Connect returns, nothing is negotiated nor in flight).
func (t *drainTransport) session() stdioSession {
	if c := t.live.Load(); c != nil {
		return c
	}
	return (*drainConn)(nil)
}

// drainConn counts the requests it reads (JSON-RPC messages with an id and a
// method) and uncounts each when the response with its id has been written.
// When Read fails (io.EOF at the end of input, or an unreadable message) it
// returns the error only once the count is zero, the connection is closed
// (Run's shutdown closes sessions; the SDK closes a connection whose Write
// failed), stop is closed, or timeout has passed, whichever comes first.
// Notifications need no answer and are not counted, nor is a 2026-07-28
// client's subscriptions/listen request (MCP 2026-07-28, SEP-2575: the
// stream its notifications come on), answered only when the session ends:
// counted, it held the end of input for the whole timeout and took one of
// the unanswered requests frameReader allows for good.
//
// The wrapped connection's unexported session hook is out of reach, so the
// SDK no longer learns the negotiated protocol version on stdio (it uses
// that only to refuse JSON-RPC batches from 2025-06-18 on): drainConn
// reads it from the answer to initialize, for frameReader.
type drainConn struct {
	mcp.Connection
	stop       <-chan struct{}
	timeout    time.Duration
	log        *slog.Logger
	inputEnded func(unanswered int) // a hook (nil: none)

	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{} // requests read and not yet answered
	// streams are the session's subscriptions/listen requests, answered
	// only when it ends: in flight, but nothing to wait for.
	streams map[jsonrpc.ID]struct{}
	// writing counts the answers being written: their ids are free
	// (answering), the end of input still waits for them.
	writing int
	waiters []chan struct{} // closed when nothing is unanswered
	initID  *jsonrpc.ID     // the initialize request's id, once read
	rev     string          // the negotiated revision, once answered

	closeOnce sync.Once
	closed    chan struct{}
	// answer is signalled (best effort) each time an answer is written,
	// for waitRoom.
	answer chan struct{}
}

// Read implements [mcp.Connection].
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.drain(err)
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		// A set, like the SDK's: a duplicate id in flight is refused with a
		// response that carries no id, and the first one is still answered.
		if req.Method == methodSubscriptionsListen {
			c.streams[req.ID] = struct{}{}
		} else {
			c.pending[req.ID] = struct{}{}
		}
		if req.Method == "initialize" {
			id := req.ID
			c.initID = &id
		}
		c.mu.Unlock()
	}
	return msg, nil
}

// Write implements [mcp.Connection]. A response's id is free again before
// the response is written (answering), as the go-sdk frees it: the client
// may reuse it as soon as it reads the answer. The end of input waits for
// the write to return, whatever its error: the bytes are out, or they
// never will be.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.noteRevision(msg)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		defer c.answering(resp.ID)()
	}
	return c.Connection.Write(ctx, msg)
}

// track counts a request the fast path took off the input (fastLines) as
// read.
func (c *drainConn) track(id jsonrpc.ID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending[id] = struct{}{}
}

// answering frees id, whose answer is about to be written (or, for a
// cancelled request, never will be), and counts the write until written
// is called: the end of input waits for both.
func (c *drainConn) answering(id jsonrpc.ID) (written func()) {
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
	delete(c.streams, id)
	c.writing++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.writing--
		select {
		case c.answer <- struct{}{}:
		default:
		}
		if c.unanswered() == 0 {
			for _, w := range c.waiters {
				close(w)
			}
			c.waiters = nil
		}
	}
}

// unanswered is how many requests read have no answer written yet (with
// c.mu held).
func (c *drainConn) unanswered() int { return len(c.pending) + c.writing }

// noteRevision keeps the revision of the answer to initialize, before it
// is written: the client may send its next line as soon as it reads it.
func (c *drainConn) noteRevision(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.initID != nil && *c.initID == resp.ID {
		c.rev = negotiatedRevision(resp.Result)
	}
}

// negotiatedRevision reads protocolVersion from an initialize result.
func negotiatedRevision(result json.RawMessage) string {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(result, &r)
	return r.ProtocolVersion
}

// revision implements stdioSession.
func (c *drainConn) revision() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rev
}

// waitRoom implements stdioSession: it returns once fewer than limit
// requests read are unanswered, an answer being written counting as
// unanswered (limit <= 0: at once), or the connection is closed.
func (c *drainConn) waitRoom(limit int) {
	if c == nil || limit <= 0 {
		return
	}
	for {
		c.mu.Lock()
		n := c.unanswered()
		c.mu.Unlock()
		if n < limit {
			return
		}
		select {
		case <-c.answer:
		case <-c.closed:
			return
		}
	}
}

// inFlight implements stdioSession.
func (c *drainConn) inFlight(id jsonrpc.ID) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	_, stream := c.streams[id]
	return ok || stream
}

// Close implements [mcp.Connection]; it also ends a waiting Read.
func (c *drainConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// answered returns a channel closed once every request read so far has
// been answered (a response with its id written), and the number of
// requests it waits for.
func (c *drainConn) answered() (<-chan struct{}, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if c.unanswered() == 0 {
		close(ch)
	} else {
		c.waiters = append(c.waiters, ch)
	}
	return ch, c.unanswered()
}

// drain waits until every request read has been answered, or the
// connection closes, or stop, or the timeout.
func (c *drainConn) drain(cause error) {
	idle, n := c.answered()
	if c.inputEnded != nil {
		c.inputEnded(n)
	}
	if n == 0 {
		return
	}
	c.log.Debug("stdio input ended: answering the requests already read", "pending", n, "cause", cause)
	timer := time.NewTimer(c.timeout)
	defer timer.Stop()
	select {
	case <-idle:
	case <-c.closed:
	case <-c.stop:
	case <-timer.C:
		c.mu.Lock()
		n = c.unanswered()
		c.mu.Unlock()
		c.log.Warn("stdio input ended: abandoning unanswered requests", "pending", n, "timeout", c.timeout)
	}
}
