package serve

import (
	"bytes"
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fastLines is the fast path on a line-delimited transport (stdio, and the
// in-memory streams of ConnectStream): frameReader shows it each admitted
// line before the go-sdk reads it; it takes the tools/call requests
// prepareFast accepts, runs each on one of the server's workers and writes the
// response on out (the writer the go-sdk shares, one whole line per
// Write), and takes notifications/cancelled for them. Every other line
// goes to the go-sdk unchanged.
type fastLines struct {
	s   *Server
	out io.Writer
	// session is the connection as frameReader sees it: the fast calls
	// are counted in its requests in flight (the end of input waits for
	// them as for the go-sdk's).
	session func() stdioSession
	ss      atomic.Pointer[mcp.ServerSession] // set once connected

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	calls  map[jsonrpc.ID]context.CancelFunc
	wg     sync.WaitGroup
}

func newFastLines(s *Server, out io.Writer, session func() stdioSession) *fastLines {
	ctx, cancel := context.WithCancel(context.Background())
	return &fastLines{s: s, out: out, session: session, ctx: ctx, cancel: cancel, calls: map[jsonrpc.ID]context.CancelFunc{}}
}

// attach starts taking calls for ss, until it ends: then its fast calls
// are cancelled and waited for.
func (f *fastLines) attach(ss *mcp.ServerSession) {
	f.ss.Store(ss)
	go func() {
		_ = ss.Wait()
		f.stop()
	}()
}

// stop cancels the fast calls in flight and waits for them.
func (f *fastLines) stop() {
	f.cancel()
	f.wg.Wait()
}

var (
	toolsCallMethod = []byte(`"tools/call"`)
	cancelledMethod = []byte(`"notifications/cancelled"`)
)

// take reports whether it took line (one JSON-RPC message, not a batch).
func (f *fastLines) take(line []byte) bool {
	ss := f.ss.Load()
	if ss == nil || line[0] != '{' {
		return false
	}
	call, cancel := bytes.Contains(line, toolsCallMethod), bytes.Contains(line, cancelledMethod)
	if !call && !cancel {
		return f.reusesID(line)
	}
	// Read as strictly as the HTTP fast path (the go-sdk matches member
	// names exactly, encoding/json would also take "NAME" for "name"), a
	// 2026-07-28 request's protocol _meta allowed.
	msg, ok := parseFastLine(line)
	switch {
	case !ok:
		return f.reusesID(line)
	case msg.method == methodCancelled:
		return f.cancelled(keyID(msg.idKey))
	case f.holds(keyID(msg.idKey)):
		return true
	case msg.sdkOnly:
		return false
	}
	return f.call(ss, &msg)
}

// call starts a fast call (msg, as parseFastLine read it), unless its id
// is in flight already (the go-sdk then answers as it does) or
// prepareFast leaves it to the go-sdk.
func (f *fastLines) call(ss *mcp.ServerSession, msg *fastMessage) bool {
	id := keyID(msg.idKey) // the id as the go-sdk reads it
	sess := f.session()
	if sess.inFlight(id) || f.ctx.Err() != nil {
		return false
	}
	fc := f.s.prepareFast(ss, msg.id, &msg.call)
	if fc == nil {
		return false
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.mu.Lock()
	f.calls[id] = cancel
	f.mu.Unlock()
	sess.track(id)
	f.wg.Add(1)
	f.s.fastWorkers.run(func() { f.run(ctx, id, fc, sess) })
	return true
}

// run runs fc and writes its response, unless the call was cancelled (as
// the go-sdk, it then answers nothing: MCP 2025-11-25
// basic/utilities/cancellation). The id is free again before the
// response is written, as the go-sdk frees it: the client may reuse it as
// soon as it reads the answer.
func (f *fastLines) run(ctx context.Context, id jsonrpc.ID, fc *fastCall, sess stdioSession) {
	defer f.wg.Done()
	resp := fc.run(ctx)
	f.mu.Lock()
	cancel := f.calls[id]
	delete(f.calls, id)
	f.mu.Unlock()
	written := sess.answering(id)
	if ctx.Err() == nil {
		_, _ = f.out.Write(append(resp, '\n'))
	}
	written()
	cancel()
}

// holds reports whether a fast call with this id is in flight: a request
// reusing it is dropped, as the go-sdk drops a request reusing the id of
// one in flight (answering nothing); handed to the go-sdk, which never saw
// the fast call, it would be answered with that id.
func (f *fastLines) holds(id jsonrpc.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.calls[id]
	return ok
}

// reusesID is holds for a line the fast path does not read, decoded as
// the go-sdk decodes it (only while fast calls are in flight).
func (f *fastLines) reusesID(line []byte) bool {
	f.mu.Lock()
	n := len(f.calls)
	f.mu.Unlock()
	if n == 0 {
		return false
	}
	msg, err := jsonrpc.DecodeMessage(line)
	req, ok := msg.(*jsonrpc.Request)
	return err == nil && ok && req.IsCall() && f.holds(req.ID)
}

// cancelled cancels the fast call a notifications/cancelled names, and
// reports whether there was one.
func (f *fastLines) cancelled(id jsonrpc.ID) bool {
	f.mu.Lock()
	cancel := f.calls[id]
	f.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}
