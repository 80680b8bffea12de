package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// Call forwards one tools/call (params.Name is the server's own tool name)
// and returns the server's result unchanged. It fails at once with an
// *Error wrapping ErrUnavailable while the server is down, and with one
// wrapping ErrTimeout after Options.Timeout; when ctx ends first, the
// go-sdk sends the server notifications/cancelled for the request. With
// progress set, the request carries a progress token of its own and each
// of the server's notifications/progress for it is handed to progress
// (whose caller puts back the downstream token); Call returns only once
// progress has been handed every notification the server sent before its
// response (waiting at most progressDrain).
func (u *Upstream) Call(ctx context.Context, params *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	c := u.current()
	if c == nil {
		return nil, u.unavailable()
	}
	ctx, done := u.callContext(ctx)
	defer done()
	p := *params
	var r *progressRelay
	if progress != nil {
		tok := u.tokenPrefix + strconv.FormatUint(u.tokens.Add(1), 10)
		r = newProgressRelay(progress, c.lister.WatchProgress(tok))
		u.progress.Store(tok, r)
		defer u.progress.Delete(tok)
		defer r.watch.Stop()
		p.Meta = mcp.Meta{}
		for k, v := range params.Meta {
			p.Meta[k] = v
		}
		p.Meta["progressToken"] = tok
	}
	res, err := c.session.CallTool(ctx, &p)
	if r != nil {
		r.drain(ctx)
	}
	if err == nil {
		return res, nil
	}
	return nil, u.callError(ctx, c, err)
}

// CallRaw forwards one tools/call whose params (the server's own tool
// name, arguments and _meta, as JSON) are sent as they are, and returns
// the server's result as it sent it. Over stdio (and Options.Pipe) the
// request goes on the connection beside the go-sdk client and its response
// is taken off before the go-sdk reads it (mcpclient.RawCalls): nothing is
// decoded on the way. Over streamable HTTP before 2026-07-28 it is POSTed
// in the go-sdk client's session (callRawHTTP); otherwise it is Call
// without progress, its result encoded again. Errors are Call's; when ctx ends first, the server is
// sent notifications/cancelled for the request.
func (u *Upstream) CallRaw(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	res, _, err := u.CallParsed(ctx, params)
	return res, err
}

// CallParsed is CallRaw that also returns the result as parsed when the
// server's response was read strictly on the way
// (mcpclient.PlainResponse; nil otherwise): its offsets are into the
// response, of which the result starts at parsed.Start.
func (u *Upstream) CallParsed(ctx context.Context, params json.RawMessage) (json.RawMessage, *canon.Value, error) {
	c := u.current()
	if c == nil {
		return nil, nil, u.unavailable()
	}
	if c.raw == nil {
		res, parsed, err := u.callRawHTTP(ctx, c, params)
		if errors.Is(err, errNotRaw) {
			res, err = u.callDecoded(ctx, params)
		}
		return res, parsed, err
	}
	ctx, done := u.callContext(ctx)
	defer done()
	res, parsed, err := c.raw.CallParsed(ctx, "tools/call", params)
	if err != nil {
		return nil, nil, u.callError(ctx, c, err)
	}
	return res, parsed, nil
}

// callDecoded is CallRaw through the go-sdk client (HTTP upstreams).
func (u *Upstream) callDecoded(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	var p mcp.CallToolParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("upstream %q: tools/call params: %w", u.opts.Name, err)
	}
	res, err := u.Call(ctx, &p, nil)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// errClosing ends the calls under way when the upstream is closed.
var errClosing = errors.New("the upstream is closing")

// callContext is the context of one call: ctx with Options.Timeout (its
// cause ErrTimeout), ended with cause errClosing when the upstream is
// closed. Close must end the calls under way: the go-sdk closes a
// connection only once no call waits for its response, which a server
// that stopped reading or answering never sends, and a raw call over HTTP
// would otherwise wait for its timeout after Close returned, its
// downstream client unanswered. done releases it.
func (u *Upstream) callContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithTimeoutCause(ctx, u.opts.Timeout, ErrTimeout)
	ctx, closing := context.WithCancelCause(ctx)
	stop := context.AfterFunc(u.ctx, func() { closing(errClosing) })
	return ctx, func() {
		stop()
		closing(nil)
		cancel()
	}
}

// callError maps the failure of a call over c (ctx the call's, with
// Options.Timeout) to the errors Call documents.
func (u *Upstream) callError(ctx context.Context, c *conn, err error) error {
	err = u.redact(err)
	switch {
	// A write the server did not take within Options.Timeout (the go-sdk
	// writes without the call's deadline) is the timeout too, also when
	// it fails just before ctx's own timer.
	case errors.Is(context.Cause(ctx), ErrTimeout), ctx.Err() == nil && errors.Is(err, mcpclient.ErrWriteStalled):
		return &Error{Name: u.opts.Name, Msg: fmt.Sprintf("no answer within %s", u.opts.Timeout), Err: ErrTimeout}
	case errors.Is(context.Cause(ctx), errClosing):
		return &Error{Name: u.opts.Name, Msg: "closed during the call", Err: ErrUnavailable}
	// A stdio server is waited for from its start, so its exit may close
	// the pipe under the read (os.ErrClosed, io.ErrClosedPipe for a
	// net.Pipe) before the SDK sees EOF.
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, os.ErrClosed), errors.Is(err, io.ErrClosedPipe), u.current() != c:
		return &Error{Name: u.opts.Name, Msg: "the server went away during the call", Err: errors.Join(ErrUnavailable, err)}
	}
	return err
}

// progressDrain bounds how long a call that got its response waits for
// the progress notifications the server sent before it to be relayed.
const progressDrain = 250 * time.Millisecond

// progressRelay hands one call's progress notifications to its caller and
// counts them. The go-sdk client runs notification handlers after the
// response may have returned from CallTool; drain makes the call wait for
// those the server sent before its response (counted by watch where the
// connection reads them, in wire order), so the caller relays every one
// before it answers downstream (over streamable HTTP, before the
// request's SSE stream closes). They are relayed in order off the go-sdk's
// handler, which runs one notification at a time for the whole connection:
// a downstream client that stops reading holds up only its own progress.
type progressRelay struct {
	relay func(*mcp.ProgressNotificationParams)
	watch *mcpclient.ProgressWatch

	mu      sync.Mutex
	queue   []*mcp.ProgressNotificationParams // not yet relayed
	sending bool                              // a goroutine relays the queue
	relayed int
	more    chan struct{} // closed and replaced at each relayed notification
}

// maxQueuedProgress bounds the notifications a call keeps while its caller
// is slow to relay them; later ones are dropped (progress is advisory: MCP
// 2025-11-25 basic/utilities/progress).
const maxQueuedProgress = 256

func newProgressRelay(relay func(*mcp.ProgressNotificationParams), w *mcpclient.ProgressWatch) *progressRelay {
	return &progressRelay{relay: relay, watch: w, more: make(chan struct{})}
}

// handle queues one notification to be relayed.
func (r *progressRelay) handle(p *mcp.ProgressNotificationParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queue) >= maxQueuedProgress {
		r.count()
		return
	}
	r.queue = append(r.queue, p)
	if !r.sending {
		r.sending = true
		go r.send()
	}
}

// send relays the queue in order until it is empty.
func (r *progressRelay) send() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.queue) > 0 {
		p := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		r.relay(p)
		r.mu.Lock()
		r.count()
	}
	r.sending = false
}

// count counts one notification relayed or dropped (the caller holds mu).
func (r *progressRelay) count() {
	r.relayed++
	close(r.more)
	r.more = make(chan struct{})
}

// drain waits, at most progressDrain and while ctx lasts, until every
// notification read before the call's response has been relayed.
func (r *progressRelay) drain(ctx context.Context) {
	want, ok := r.watch.Before()
	if !ok {
		return
	}
	t := time.NewTimer(progressDrain)
	defer t.Stop()
	for {
		r.mu.Lock()
		n, more := r.relayed, r.more
		r.mu.Unlock()
		if n >= want {
			return
		}
		select {
		case <-more:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// unavailable is the error of a call made while the server is down.
func (u *Upstream) unavailable() error {
	st := u.Status()
	msg := "unavailable (" + st.State + ")"
	if st.LastError != "" {
		msg += ": " + st.LastError
	}
	return &Error{Name: u.opts.Name, Msg: msg, Err: ErrUnavailable}
}

// relayProgress hands a progress notification of the server to the call
// that owns its token.
func (u *Upstream) relayProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	if r, ok := u.progress.Load(tok); ok {
		r.(*progressRelay).handle(req.Params)
	}
}

// stderrLog logs a stdio server's standard error, line by line, at debug
// level (it is the server's own diagnostics).
type stderrLog struct{ log *slog.Logger }

func (s *stderrLog) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		s.log.Debug("upstream stderr", "line", truncate(l))
	}
	return len(p), nil
}

// truncate shortens a line quoted in a log.
func truncate(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
