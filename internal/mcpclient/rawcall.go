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
	"strconv"
	"sync"
	"sync/atomic"

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

	// wmu makes each write whole; mu guards pending and err. They are
	// apart so that reading a response never waits on a write the server
	// is slow to read.
	wmu     sync.Mutex
	w       io.Writer // the connection's writer; writes hold wmu
	mu      sync.Mutex
	pending map[string]chan rawResponse
	err     error // set once the connection is gone
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

// NewRawCalls returns a RawCalls with ids of a new random prefix.
func NewRawCalls() *RawCalls {
	p := RandomPrefix()
	return &RawCalls{prefix: p, quoted: []byte(`"` + p), pending: map[string]chan rawResponse{}}
}

// writer is the connection's writer as both the go-sdk and Call use it:
// each Write (one message and its newline, from the go-sdk's IOTransport)
// is whole.
func (r *RawCalls) writer(w io.WriteCloser) io.WriteCloser {
	r.w = w // before the connection exists: no call yet
	return rawWriter{r: r, c: w}
}

type rawWriter struct {
	r *RawCalls
	c io.Closer
}

func (w rawWriter) Write(p []byte) (int, error) { return w.r.write(p) }

func (r *RawCalls) write(p []byte) (int, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return r.w.Write(p)
}

func (w rawWriter) Close() error { return w.c.Close() }

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
	if err := r.send(id, ch, method, params); err != nil {
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

// send registers id and writes the request.
func (r *RawCalls) send(id string, ch chan rawResponse, method string, params []byte) error {
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
	if _, err := r.write(line); err != nil {
		r.forget(id)
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
	if r == nil || !bytes.Contains(line, r.quoted) {
		return false
	}
	if id, res, ok := PlainResponse(line); ok {
		return id.Kind == canon.String && r.hand(id.Str, rawResponse{result: line[res.Start:res.End], parsed: res})
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

// PlainResponse parses line strictly (canon.Parse) when it is a plain
// JSON-RPC response carrying a result: an object of exactly the members
// jsonrpc (any value), id and result, none twice. It returns the id and
// the result (offsets into line). ok false: anything else (an error, a
// request, another member, a name in another case, invalid or non-strict
// JSON), which the caller reads as before.
func PlainResponse(line []byte) (id, result *canon.Value, ok bool) {
	v, err := canon.Parse(line)
	if err != nil || v.Kind != canon.Object {
		return nil, nil, false
	}
	for i := range v.Members {
		switch m := &v.Members[i]; m.Key {
		case "id":
			id = &m.Value
		case "result":
			result = &m.Value
		case "jsonrpc":
		default:
			return nil, nil, false
		}
	}
	return id, result, id != nil && result != nil
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
