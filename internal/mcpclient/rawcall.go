package mcpclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
)

// RawCalls sends JSON-RPC requests on a line-delimited connection (stdio,
// MCP 2025-11-25 basic/transports) beside the go-sdk client that owns it,
// and takes their responses off the connection before the go-sdk reads
// them: a forwarded tools/call then costs no go-sdk encoding or decoding.
// Its request ids are strings "mcpctl-<random>-<n>"; the go-sdk client
// numbers its own requests with integers, so the two never collide. Make
// one per connection with NewRawCalls and give it to RawCommandTransport
// or PipeTransport; Call is safe for concurrent use.
type RawCalls struct {
	prefix string // "mcpctl-<random>-"
	quoted []byte // `"mcpctl-<random>-`, what an id of ours starts with on the wire
	seq    atomic.Uint64

	// wlock (held by sending into it) makes each write whole; mu guards
	// pending and err. They are apart so that reading a response never
	// waits on a write the server is slow to read.
	wlock chan struct{}
	w     io.Writer // the connection's writer; writes hold wlock
	c     io.Closer // closes the connection (a write broke a line)
	// writeTimeout bounds every write whose writer takes deadlines (a
	// stdio server's stdin, a net.Pipe): a server that reads none of a
	// message for that long is not reading (see writeBy).
	writeTimeout time.Duration
	// broken (held with wlock) is set once a write broke a line: no
	// later write may reach the server glued to it.
	broken error
	// abandoned is set by Abandon: writes fail, the one under way too.
	abandoned atomic.Bool
	mu        sync.Mutex
	pending   map[string]chan rawResponse
	err       error // set once the connection is gone
}

type rawResponse struct {
	result json.RawMessage
	parsed *canon.Value // see CallParsed
	err    error
}

// ErrRawClosed is wrapped (with mcp.ErrConnectionClosed) by the error of a
// raw call whose connection ended before its response came.
var ErrRawClosed = errors.New("the connection ended before the response")

// RandomPrefix returns "mcpctl-<16 random hex digits>-": the start of ids
// and progress tokens a peer cannot guess.
func RandomPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return "mcpctl-" + hex.EncodeToString(b[:]) + "-"
}

// NewRawCalls returns a RawCalls with ids of a new random prefix whose
// writes give up after writeTimeout (0: never) when the connection's
// writer takes deadlines.
func NewRawCalls(writeTimeout time.Duration) *RawCalls {
	p := RandomPrefix()
	return &RawCalls{prefix: p, quoted: []byte(`"` + p), pending: map[string]chan rawResponse{},
		wlock: make(chan struct{}, 1), writeTimeout: writeTimeout}
}

// writer is the connection's writer as both the go-sdk and Call use it:
// each Write (one message and its newline, from the go-sdk's IOTransport)
// is whole.
func (r *RawCalls) writer(w io.WriteCloser) io.WriteCloser {
	r.w, r.c = w, w // before the connection exists: no call yet
	return rawWriter{r: r, c: w}
}

type rawWriter struct {
	r *RawCalls
	c io.Closer
}

func (w rawWriter) Write(p []byte) (int, error) { return w.r.write(p) }

func (r *RawCalls) write(p []byte) (int, error) { return r.writeBy(context.Background(), p) }

// deadliner is a writer whose writes take a deadline (*os.File of a pipe,
// net.Conn).
type deadliner interface{ SetWriteDeadline(time.Time) error }

// ErrWriteStalled is wrapped by the error of a write the server did not
// read within the write timeout (or before the call's context ended).
var ErrWriteStalled = errors.New("the server is not reading its input")

// writeBy writes p, one whole message, unless ctx ends before the write
// can start. When the writer takes deadlines, the write gives up when ctx
// ends (its deadline, or a cancellation) or after writeTimeout, whichever
// comes first: a server that stopped reading (a stdio server whose event
// loop is blocked, or hung) must not hold a call past its timeout, nor
// every later write behind it. A write given up after part of p went out
// has broken the line, and closes the connection (a stdio server is then
// restarted, as after a crash); so does a write given up without a
// context of its own.
func (r *RawCalls) writeBy(ctx context.Context, p []byte) (int, error) {
	select {
	case r.wlock <- struct{}{}:
	case <-ctx.Done():
		return 0, fmt.Errorf("%w: %w", ErrWriteStalled, context.Cause(ctx))
	}
	defer func() { <-r.wlock }()
	if ctx.Err() != nil { // select takes either case when both are ready
		return 0, fmt.Errorf("%w: %w", ErrWriteStalled, context.Cause(ctx))
	}
	if r.broken == nil && r.abandoned.Load() {
		r.broken = closedErr(ErrAbandoned)
	}
	if r.broken != nil {
		return 0, r.broken
	}
	dl, ok := r.w.(deadliner)
	deadline, bounded := r.writeDeadline(ctx)
	if !ok || !bounded || dl.SetWriteDeadline(deadline) != nil {
		return r.w.Write(p)
	}
	if r.abandoned.Load() { // after the deadline is set: see Abandon
		return 0, closedErr(ErrAbandoned)
	}
	n, err := r.writeUntilDone(ctx, dl, p)
	if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
		return n, err
	}
	if r.abandoned.Load() {
		return n, closedErr(ErrAbandoned)
	}
	err = fmt.Errorf("%w: it took %d of a message's %d bytes before the write's deadline", ErrWriteStalled, n, len(p))
	if ctx.Err() != nil {
		err = fmt.Errorf("%w: %w", err, context.Cause(ctx))
	}
	// A write of the connection's own (no context: the go-sdk's, a
	// cancellation) that the server did not take ends the connection as
	// a broken line does: the go-sdk holds a failed write as a broken
	// connection anyway, but closes it only once idle, after each write
	// queued behind this one has waited its own timeout.
	if n > 0 || ctx.Done() == nil {
		r.breakLine(err)
	}
	return n, err
}

// writeUntilDone writes p (its deadline set) and gives up as soon as ctx
// ends (a cancelled call), not only at the deadline; then it clears the
// deadline.
func (r *RawCalls) writeUntilDone(ctx context.Context, dl deadliner, p []byte) (int, error) {
	if ctx.Done() == nil {
		n, err := r.w.Write(p)
		_ = dl.SetWriteDeadline(time.Time{})
		return n, err
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = dl.SetWriteDeadline(time.Unix(1, 0))
		close(interrupted)
	})
	n, err := r.w.Write(p)
	if !stop() {
		<-interrupted // before the deadline is cleared for the next write
	}
	_ = dl.SetWriteDeadline(time.Time{})
	return n, err
}

// breakLine fails every call and write after a write broke a line with
// cause (the caller holds wlock), and closes the connection off the
// caller's path: closing a stdio server's stdin waits for a hung server
// to be killed, past the deadline the write was given.
func (r *RawCalls) breakLine(cause error) {
	r.broken = closedErr(cause)
	r.close(cause)
	go func() { _ = r.c.Close() }()
}

// ErrAbandoned is wrapped (with mcp.ErrConnectionClosed) by the error of
// a write after Abandon.
var ErrAbandoned = errors.New("the connection is being closed")

// Abandon fails every later write, and the write under way when the
// writer takes deadlines: the connection is being closed, and the go-sdk
// closes it only once no call is in flight, so a write the server does
// not take would hold the close for up to the write timeout.
func (r *RawCalls) Abandon() {
	r.abandoned.Store(true)
	// A write whose deadline was set before this one fails now; one set
	// after it sees abandoned set (writeBy checks it after setting).
	if dl, ok := r.w.(deadliner); ok {
		_ = dl.SetWriteDeadline(time.Unix(1, 0))
	}
}

// writeDeadline is when a write starting now gives up; false: never.
func (r *RawCalls) writeDeadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Deadline()
	if r.writeTimeout > 0 {
		if t := time.Now().Add(r.writeTimeout); !ok || t.Before(d) {
			d, ok = t, true
		}
	}
	return d, ok
}

// Close ends the raw calls with the connection: the go-sdk closes it when
// it refuses what the server sent, and then no longer reads the server's
// output, whose end would have ended them.
func (w rawWriter) Close() error {
	w.r.close(errConnClosed)
	return w.c.Close()
}

// errConnClosed is the cause of the raw calls' end when the connection
// is closed.
var errConnClosed = errors.New("the connection was closed")

// Call sends one request and returns its result as the server sent it. A
// JSON-RPC error response is returned as the go-sdk client returns it
// (`calling "METHOD": ` wrapping a *jsonrpc.Error); the end of the
// connection as an error wrapping mcp.ErrConnectionClosed and
// ErrRawClosed. When ctx ends first, the server is sent
// notifications/cancelled for the request (MCP 2025-11-25
// basic/utilities/cancellation) and ctx's error is returned.
func (r *RawCalls) Call(ctx context.Context, method string, params []byte) (json.RawMessage, error) {
	res, _, err := r.CallParsed(ctx, method, params)
	return res, err
}

// CallParsed is Call that also returns the result as parsed when the
// response was a plain one (PlainResponse; nil otherwise), so that it is
// not read again: its offsets are into the response line, of which the
// result starts at parsed.Start.
func (r *RawCalls) CallParsed(ctx context.Context, method string, params []byte) (json.RawMessage, *canon.Value, error) {
	id := r.prefix + strconv.FormatUint(r.seq.Add(1), 10)
	ch := make(chan rawResponse, 1)
	if err := r.send(ctx, id, ch, method, params); err != nil {
		if d, ok := ctx.Deadline(); ok && errors.Is(err, ErrWriteStalled) && !time.Now().Before(d) {
			<-ctx.Done() // the write met ctx's deadline: let ctx say why
		}
		return nil, nil, err
	}
	select {
	case resp := <-ch:
		if resp.err != nil && !errors.Is(resp.err, ErrRawClosed) {
			return nil, nil, fmt.Errorf("calling %q: %w", method, resp.err)
		}
		return resp.result, resp.parsed, resp.err
	case <-ctx.Done():
		if r.forget(id) {
			go r.cancel(id, ctx.Err())
		}
		return nil, nil, ctx.Err()
	}
}

// send registers id and writes the request (giving up as writeBy does).
func (r *RawCalls) send(ctx context.Context, id string, ch chan rawResponse, method string, params []byte) error {
	line := make([]byte, 0, len(params)+len(id)+len(method)+64)
	line = append(line, `{"jsonrpc":"2.0","id":"`...)
	line = append(line, id...)
	line = append(line, `","method":`...)
	line = strconv.AppendQuote(line, method)
	line = append(line, `,"params":`...)
	line = append(line, params...)
	line = append(line, "}\n"...)
	r.mu.Lock()
	if r.err != nil {
		r.mu.Unlock()
		return r.err
	}
	r.pending[id] = ch // before writing: the answer may come at once
	r.mu.Unlock()
	if _, err := r.writeBy(ctx, line); err != nil {
		r.forget(id)
		if errors.Is(err, ErrWriteStalled) {
			return err
		}
		return closedErr(err)
	}
	return nil
}

func closedErr(cause error) error {
	return fmt.Errorf("%w: %w (%w)", mcp.ErrConnectionClosed, ErrRawClosed, cause)
}

// forget drops a pending call; it reports whether it was still pending.
func (r *RawCalls) forget(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.pending[id]; !ok {
		return false
	}
	delete(r.pending, id)
	return true
}

// cancel tells the server that the request id is cancelled (the reason
// worded as the go-sdk client words it). It runs off the caller's return
// path: a server that stops reading blocks only this write, until the
// connection closes.
func (r *RawCalls) cancel(id string, reason error) {
	p, _ := json.Marshal(mcp.CancelledParams{RequestID: id, Reason: reason.Error()})
	line := append([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":`), p...)
	line = append(line, "}\n"...)
	_, _ = r.write(line)
}

// take hands line to its raw call when it is the response to one and
// reports whether it did (then the go-sdk must not see it). A response
// with one of our ids that no call waits for (answered twice, or after
// the call was cancelled) is taken too, and dropped. A plain response
// (PlainResponse) is read once, strictly; any other as encoding/json
// reads it. The result handed on shares line, which the caller does not
// reuse.
func (r *RawCalls) take(line []byte) bool {
	if r == nil || !r.mayHold(line) {
		return false
	}
	if taken, plain := r.takePlain(line); plain {
		return taken
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.Method != nil {
		return false
	}
	var id string
	if json.Unmarshal(msg.ID, &id) != nil {
		return false
	}
	resp := rawResponse{result: msg.Result}
	if msg.Error != nil {
		resp.err = msg.Error
	} else if msg.Result == nil {
		resp.err = errors.New("the response has neither result nor error")
	}
	return r.hand(id, resp)
}

// takePlain is take for a plain response (PlainResponse), the response
// to almost every call; plain reports whether line is one. A line it
// takes is read once, strictly, and no more: canon.Parse refuses what the
// checks of a line the go-sdk reads look for (nesting deeper than
// canon.MaxDepth, more than one value, JSON the go-sdk's decoder refuses).
func (r *RawCalls) takePlain(line []byte) (taken, plain bool) {
	id, res, ok := PlainResponse(line)
	if !ok {
		return false, false
	}
	return id.Kind == canon.String && r.hand(id.Str, rawResponse{result: line[res.Start:res.End], parsed: res}), true
}

// takesPlain reports whether it took line as a plain response to one of
// our calls (takePlain), before any other check of the line. A line
// without the name "result" written plainly is left to take, which reads
// it anyway: parsed here too, an error response was parsed twice.
func (r *RawCalls) takesPlain(line []byte) bool {
	if r == nil || len(line) == 0 || line[0] != '{' || !bytes.Contains(line, r.quoted) || !bytes.Contains(line, resultName) {
		return false
	}
	taken, _ := r.takePlain(line)
	return taken
}

var resultName = []byte(`"result"`)

// takeLine is take for a line of a stdio server, which may be a batch
// (JSON-RPC 2.0 §6; the go-sdk's client reads batches there): the
// responses to raw calls in a batch are taken out of it. rest is what the
// go-sdk reads of the line when taken (nil: nothing).
func (r *RawCalls) takeLine(line []byte) (rest []byte, taken bool) {
	if r == nil || len(line) == 0 || line[0] != '[' {
		return nil, r.take(line)
	}
	if !r.mayHold(line) {
		return nil, false
	}
	v, err := canon.Skim(line, 1)
	if err != nil || v.Kind != canon.Array {
		return nil, false // the go-sdk refuses it as it comes
	}
	var kept [][]byte
	for _, it := range v.Items {
		m := line[it.Start:it.End]
		if r.take(m) {
			taken = true
			continue
		}
		kept = append(kept, m)
	}
	if !taken || len(kept) == 0 {
		return nil, taken
	}
	return append(append([]byte("["), bytes.Join(kept, []byte(","))...), ']'), true
}

// mayHold reports whether line may hold one of our ids: it holds its
// bytes, or an escape (\u), which may write one otherwise (the go-sdk
// reads the id's value), and Skim reads an id of ours in line or in a
// message of its batch.
func (r *RawCalls) mayHold(line []byte) bool {
	if bytes.Contains(line, r.quoted) {
		return true
	}
	if !bytes.Contains(line, []byte(`\u`)) {
		return false
	}
	v, err := canon.Skim(line, 2)
	if err != nil {
		return false
	}
	ours := func(m *canon.Value) bool {
		id := m.Get("id")
		return id != nil && id.Kind == canon.String && strings.HasPrefix(id.Str, r.prefix)
	}
	if v.Kind == canon.Array {
		return slices.ContainsFunc(v.Items, func(it canon.Value) bool { return ours(&it) })
	}
	return ours(&v)
}

// PlainResponse parses line strictly (canon.Parse) when it is a plain
// JSON-RPC response carrying a result: an object of exactly the members
// jsonrpc ("2.0": the go-sdk's decoder refuses another), id and result,
// none twice. It returns the id and
// the result (offsets into line). ok false: anything else (an error, a
// request, another member, a name in another case, invalid or non-strict
// JSON), which the caller reads as before.
func PlainResponse(line []byte) (id, result *canon.Value, ok bool) {
	v, err := canon.Parse(line)
	if err != nil || v.Kind != canon.Object {
		return nil, nil, false
	}
	version := false
	for i := range v.Members {
		switch m := &v.Members[i]; m.Key {
		case "id":
			id = &m.Value
		case "result":
			result = &m.Value
		case "jsonrpc":
			version = m.Value.Kind == canon.String && m.Value.Str == "2.0"
		default:
			return nil, nil, false
		}
	}
	return id, result, version && id != nil && result != nil
}

// hand gives resp to the call with this id, when it is one of ours, and
// reports whether it is.
func (r *RawCalls) hand(id string, resp rawResponse) bool {
	if len(id) <= len(r.prefix) || id[:len(r.prefix)] != r.prefix {
		return false
	}
	r.mu.Lock()
	ch, ok := r.pending[id]
	if ok {
		delete(r.pending, id)
	}
	r.mu.Unlock()
	if ok {
		ch <- resp
	}
	return true
}

// close fails every pending call and every later one: the connection
// ended with cause.
func (r *RawCalls) close(cause error) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.err = closedErr(cause)
	for id, ch := range r.pending {
		ch <- rawResponse{err: r.err}
		delete(r.pending, id)
	}
}
