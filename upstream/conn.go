package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/mcpctl/mcpctl/internal/proc"
	"github.com/mcpctl/mcpctl/toolset"
)

// conn is one client session with the server and the lister reading its
// raw tools/list results.
type conn struct {
	session *mcp.ClientSession
	lister  *mcpclient.Lister
	cmd     *exec.Cmd             // stdio only
	stderr  *mcpclient.StderrTail // cmd's standard error
	// raw sends calls beside the session (stdio and Options.Pipe; nil
	// over HTTP).
	raw   *mcpclient.RawCalls
	ended chan struct{}
	// endProc kills cmd's process group (nil: no process); started
	// stops the start's hold on it (see killAtStartEnd).
	endProc context.CancelFunc
	started func() bool
}

// terminateDelay is how long closing a stdio session waits for the server
// to exit after its stdin is closed, and again after SIGTERM (MCP
// 2025-11-25 basic/lifecycle, "Shutdown").
const terminateDelay = 2 * time.Second

// connect starts or reaches the server, initializes (asking for the
// revision toolset pins, or the go-sdk's newest when the server wants it:
// see Options.ProtocolVersion) and reads its tool list.
func (u *Upstream) connect(ctx context.Context) (*conn, *toolset.Set, error) {
	c, err := u.initialize(ctx)
	if err != nil && !u.newest.Load() && c.lister.WantsNewerProtocol(err) {
		u.log.Info("upstream refused protocol " + mcpclient.PinnedProtocolVersion + "; using the newest the client supports")
		u.newest.Store(true)
		c, err = u.initialize(ctx)
	}
	if err != nil {
		return nil, nil, u.redact(c.startError(err))
	}
	session := c.session
	set, err := c.lister.List(ctx, session)
	if err == nil && !c.started() {
		err = context.Cause(ctx) // the process is being killed
	}
	if err != nil {
		c.close()
		return nil, nil, u.redact(err)
	}
	go func() {
		_ = session.Wait()
		c.kill()
		close(c.ended)
	}()
	return c, set, nil
}

// initialize makes one connection and initializes it (c is returned for
// its lister even on failure).
func (u *Upstream) initialize(ctx context.Context) (*conn, error) {
	c := &conn{lister: mcpclient.NewLister(u.source()), ended: make(chan struct{})}
	version := mcpclient.PinnedProtocolVersion
	if u.newest.Load() {
		version = ""
	}
	t := u.transport(c)
	c.killAtStartEnd(ctx)
	session, err := u.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		c.kill()
		return c, err
	}
	c.session = session
	return c, nil
}

// source names the server in tool set errors: stdio:COMMAND or its URL.
func (u *Upstream) source() string {
	if len(u.opts.Command) > 0 {
		return "stdio:" + mcpclient.JoinWords(u.opts.Command)
	}
	if u.opts.URL != "" {
		return u.opts.URL
	}
	return "upstream:" + u.opts.Name
}

// transport makes the client transport of one connection, its tools/list
// results shown to c's lister.
func (u *Upstream) transport(c *conn) mcp.Transport {
	switch {
	case u.opts.Transport != nil:
		return c.lister.Transport(u.opts.Transport())
	case u.opts.URL != "":
		return c.lister.HTTPTransport(u.opts.URL, u.base, u.opts.Headers)
	case u.opts.Pipe != nil:
		c.raw = mcpclient.NewRawCalls(u.opts.Timeout)
		return c.lister.Transport(&pipeTransport{dial: u.opts.Pipe, warn: u.skipped, raw: c.raw})
	}
	argv := u.opts.Command
	pctx, endProc := context.WithCancel(u.ctx)
	c.endProc = endProc
	cmd := exec.CommandContext(pctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = u.opts.Env, u.opts.Dir
	c.stderr = mcpclient.NewStderrTail(&stderrLog{log: u.log})
	cmd.Stderr = c.stderr
	cmd.WaitDelay = time.Second
	proc.SetGroup(cmd)
	c.cmd = cmd
	c.raw = mcpclient.NewRawCalls(u.opts.Timeout)
	return c.lister.Transport(mcpclient.RawCommandTransport(cmd, terminateDelay, u.skipped, c.raw))
}

// startError is err, the failure to initialize c, with how a stdio
// server's process ended and what it last wrote to its standard error
// (mcpclient.ExitDetails), as mcpctl snapshot reports them: an upstream
// that exits before initialize (a misspelt npx package) otherwise says
// only EOF.
func (c *conn) startError(err error) error {
	if c.cmd == nil || c.cmd.Process == nil {
		return err
	}
	if d := mcpclient.ExitDetails(c.cmd, c.stderr); d != "" {
		return fmt.Errorf("%w; %s", err, d)
	}
	return err
}

// skipped logs a line of the server's output that the connection did not
// pass on as it came (why: "that is not JSON-RPC", …).
func (u *Upstream) skipped(line, why string) {
	u.log.Warn("skipped a line of the upstream's stdout "+why, "line", truncate(line))
}

// pipeTransport dials Options.Pipe when the go-sdk connects.
type pipeTransport struct {
	dial func() (io.ReadWriteCloser, error)
	warn func(line, why string)
	raw  *mcpclient.RawCalls
}

func (t *pipeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	rwc, err := t.dial()
	if err != nil {
		return nil, err
	}
	return mcpclient.PipeTransport(rwc, t.warn, t.raw).Connect(ctx)
}

// close ends the session (for stdio: the server is asked to exit, then
// its process group is killed).
func (c *conn) close() {
	if c.raw != nil {
		c.raw.Abandon() // a write the server does not take would hold Close
	}
	if c.session != nil {
		_ = c.session.Close()
	}
	c.kill()
}

// kill kills what is left of a stdio server's process group.
func (c *conn) kill() {
	if c.cmd != nil {
		proc.KillGroup(c.cmd)
	}
	if c.endProc != nil {
		c.endProc()
	}
}

// killAtStartEnd kills a stdio server's process group as soon as ctx,
// the start's, ends before the start does (c.started): a server that did
// not start in time is not shut down gracefully, which waits up to two
// terminate delays for a server that ignores the end of its stdin and
// SIGTERM (`startTimeout: 300ms` in front of `sleep 300` failed after
// 2.3 s; one that also ignored SIGTERM, after 5.3 s).
func (c *conn) killAtStartEnd(ctx context.Context) {
	c.started = func() bool { return true }
	if c.endProc != nil {
		c.started = context.AfterFunc(ctx, c.endProc)
	}
}

// run keeps the connection until Close: it re-reads the tool list when
// asked (list_changed, Relist) and every Refresh, and restarts a server
// that went away.
func (u *Upstream) run() {
	defer close(u.done)
	var tick <-chan time.Time
	if u.opts.Refresh > 0 {
		t := time.NewTicker(u.opts.Refresh)
		defer t.Stop()
		tick = t.C
	}
	for {
		c := u.current()
		select {
		case <-u.ctx.Done():
			u.down(nil, StateClosed)
			return
		case <-c.ended:
			u.down(errors.New("the server closed the connection"), StateRestarting)
			if !u.restart() {
				u.down(nil, StateClosed)
				return
			}
		case <-u.kick:
			u.relist(c)
		case <-tick:
			u.relist(c)
		}
	}
}

func (u *Upstream) current() *conn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.conn
}

// up makes c the connection and set its tool list; it reports whether the
// list's bytes changed.
func (u *Upstream) up(c *conn, set *toolset.Set) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.conn, u.state, u.lastErr = c, StateConnected, nil
	return u.setTools(set)
}

// setTools keeps set as the tool list (the caller holds mu) and reports
// whether its bytes differ from the previous list's.
func (u *Upstream) setTools(set *toolset.Set) bool {
	var b strings.Builder
	for _, t := range set.Tools {
		b.Write(t.Raw)
		b.WriteByte(0)
	}
	changed := b.String() != u.raw
	u.tools, u.raw = set, b.String()
	return changed
}

// down marks the upstream down (calls fail at once) and closes the
// connection.
func (u *Upstream) down(err error, state string) {
	u.mu.Lock()
	c := u.conn
	u.conn, u.state = nil, state
	if err != nil {
		u.lastErr = err
	}
	u.mu.Unlock()
	if c != nil {
		c.close()
	}
	if state == StateClosed {
		u.base.CloseIdleConnections()
	}
}

// restart reconnects with exponential backoff (MinBackoff doubling up to
// MaxBackoff) until it succeeds (true) or Close is called (false).
func (u *Upstream) restart() bool {
	wait := u.opts.MinBackoff
	for {
		u.log.Warn("upstream down; restarting", "in", wait)
		t := time.NewTimer(wait)
		select {
		case <-u.ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		if u.reconnect() {
			return true
		}
		wait = min(2*wait, u.opts.MaxBackoff)
	}
}

// ErrStartTimeout is wrapped by the error of a start or restart that did
// not finish within Options.StartTimeout.
var ErrStartTimeout = errors.New("upstream start timeout")

// connectInTime is connect within Options.StartTimeout; a start that
// took longer fails with an error wrapping ErrStartTimeout.
func (u *Upstream) connectInTime(ctx context.Context) (*conn, *toolset.Set, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, u.opts.StartTimeout, ErrStartTimeout)
	defer cancel()
	c, set, err := u.connect(ctx)
	if err != nil && errors.Is(context.Cause(ctx), ErrStartTimeout) {
		err = &startTimeoutError{d: u.opts.StartTimeout, err: err}
	}
	return c, set, err
}

// startTimeoutError is a start that did not finish within d.
type startTimeoutError struct {
	d   time.Duration
	err error // what the start met when the time was up
}

func (e *startTimeoutError) Error() string {
	return fmt.Sprintf("not started within %s (startTimeout): %v", e.d, e.err)
}

func (e *startTimeoutError) Unwrap() []error { return []error{ErrStartTimeout, e.err} }

// reconnect makes one connection attempt; on success the new list is
// taken and OnList called when it changed.
func (u *Upstream) reconnect() bool {
	c, set, err := u.connectInTime(u.ctx)
	if err != nil {
		u.mu.Lock()
		u.lastErr = err
		u.mu.Unlock()
		u.log.Warn("upstream restart failed", "error", err)
		return false
	}
	u.restarts.Add(1)
	u.log.Info("upstream restarted", "tools", len(set.Tools))
	if u.up(c, set) {
		u.listed()
	}
	return true
}

// relist reads the tool list again over c and calls OnList when it
// changed.
func (u *Upstream) relist(c *conn) {
	ctx, cancel := context.WithTimeout(u.ctx, u.opts.Timeout)
	defer cancel()
	changed, err := u.list(ctx, c)
	if err != nil {
		u.log.Warn("upstream tools/list failed", "error", err)
		return
	}
	if changed {
		u.listed()
	}
}

// list reads the tool list over c (one listing at a time: a connection's
// lister keeps one listing's pages) and reports whether its bytes changed.
func (u *Upstream) list(ctx context.Context, c *conn) (bool, error) {
	u.listMu.Lock()
	defer u.listMu.Unlock()
	set, err := c.lister.List(ctx, c.session)
	u.mu.Lock()
	defer u.mu.Unlock()
	if err != nil {
		err = u.redact(err)
		u.lastErr = err
		return false, err
	}
	return u.setTools(set), nil
}

func (u *Upstream) listed() {
	if u.opts.OnList != nil {
		u.opts.OnList()
	}
}
