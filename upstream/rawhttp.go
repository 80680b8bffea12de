package upstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// errNotRaw is wrapped by the error of a callRawHTTP that sent nothing
// because the raw path cannot take the call: the upstream is not a
// streamable HTTP server, or its session speaks 2026-07-28 or later (whose
// requests carry headers and _meta the go-sdk client writes). CallRaw then
// makes the call through the go-sdk client.
var errNotRaw = errors.New("the raw HTTP path cannot take this call")

// ErrSessionExpired is wrapped by the error of a CallRaw the server
// answered 404 Not Found: it no longer knows the session (MCP 2025-11-25
// basic/transports, "Session Management"). The go-sdk session is asked to
// reconnect (Relist); the call was not made.
var ErrSessionExpired = errors.New("upstream session expired")

// callRawHTTP is CallRaw over streamable HTTP: it sends one tools/call straight to the upstream (MCP
// 2025-11-25 basic/transports, "Sending Messages to the Server") in the
// session the go-sdk client opened, and returns the server's result bytes
// unchanged. params is the request's params object as the server must
// read it (its own tool name) and must not carry a progress token: calls
// with progress take Call.
//
// The request's id is "mcpctl-<random>-<n>", a namespace the go-sdk
// client (integer ids) never uses. The answer may be application/json or
// an event stream: on the stream, notifications before the response are
// handled as the go-sdk client handles them (tools/list_changed makes the
// upstream relist; the rest, which that client drops, are dropped), and
// the server's requests get the answers the go-sdk client gives (ping: an
// empty result, roots/list: no roots, anything else: method not found).
//
// Errors: a JSON-RPC error of the server wraps a *jsonrpc.Error (as
// Call's does); an *Error wrapping errNotRaw (nothing was sent),
// ErrUnavailable (down, or gone during the call), ErrTimeout after
// Options.Timeout, or ErrSessionExpired; a response longer than
// mcpclient.MaxMessageSize wraps mcpclient.ErrMessageTooLarge. When ctx
// ends (or the timeout passes) before the answer, the server is sent
// notifications/cancelled for the request. Every error has the
// upstream's secrets redacted.
func (u *Upstream) callRawHTTP(ctx context.Context, c *conn, params json.RawMessage) (json.RawMessage, *canon.Value, error) {
	rev := c.session.InitializeResult().ProtocolVersion
	if u.opts.URL == "" || u.opts.Transport != nil || rev >= protocolSessionless {
		return nil, nil, &Error{Name: u.opts.Name, Msg: "not a pre-2026-07-28 streamable HTTP session", Err: errNotRaw}
	}
	ctx, done := u.callContext(ctx)
	defer done()
	ex := &rawExchange{u: u, sid: c.session.ID(), rev: rev, id: rawID(u.tokens.Add(1))}
	res, err := ex.call(ctx, params)
	if err == nil {
		return res, ex.parsed, nil
	}
	if ctx.Err() != nil {
		// The caller is answered without waiting for the server to take
		// the notification (a go-sdk server holds it while it closes the
		// session for a Close, until the tool ends).
		cause := context.Cause(ctx)
		if !u.goBackground(func() { ex.cancelled(cause) }) {
			ex.cancelled(cause)
		}
	}
	return nil, nil, u.rawError(ctx, err)
}

// protocolSessionless is the first revision whose requests the raw path
// does not write (Mcp-Method and Mcp-Name headers, _meta protocol fields).
const protocolSessionless = "2026-07-28"

// rawPrefix is "mcpctl-<random>-", random once per process.
var rawPrefix = sync.OnceValue(func() string { return "mcpctl-" + rand.Text()[:10] + "-" })

// rawID is the JSON of the n-th raw request id.
func rawID(n uint64) json.RawMessage {
	return strconv.AppendQuote(nil, rawPrefix()+strconv.FormatUint(n, 10))
}

// rawError types a failed raw call as Call types its errors.
func (u *Upstream) rawError(ctx context.Context, err error) error {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc):
		err = fmt.Errorf("calling %q: %w", "tools/call", err) // go-sdk's words
	case errors.Is(context.Cause(ctx), ErrTimeout):
		return &Error{Name: u.opts.Name, Msg: fmt.Sprintf("no answer within %s", u.opts.Timeout), Err: ErrTimeout}
	case errors.Is(context.Cause(ctx), errClosing):
		return &Error{Name: u.opts.Name, Msg: "closed during the call", Err: ErrUnavailable}
	case errors.Is(err, ErrSessionExpired):
		u.Relist()
	}
	return u.redact(err)
}

// rawExchange is one raw tools/call in one session.
type rawExchange struct {
	u        *Upstream
	sid, rev string
	id       json.RawMessage
	// parsed is the result as response read it, when the answer was a
	// plain response (mcpclient.PlainResponse).
	parsed *canon.Value
}

// call posts the request and reads its answer.
func (ex *rawExchange) call(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	body := make([]byte, 0, len(params)+80)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, ex.id...)
	body = append(body, `,"method":"tools/call","params":`...)
	body = append(append(body, params...), '}')
	resp, err := ex.post(ctx, body)
	if err != nil {
		return nil, ex.wentAway(ctx, err)
	}
	defer resp.Body.Close()
	if err := ex.status(resp); err != nil {
		return nil, err
	}
	in := &capped{r: resp.Body, left: mcpclient.MaxMessageSize}
	switch mcpclient.MediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, ex.wentAway(ctx, err)
		}
		return ex.response(b)
	case "text/event-stream":
		res, err := ex.stream(ctx, in)
		if err != nil {
			return nil, ex.wentAway(ctx, err)
		}
		return res, nil
	}
	return nil, &Error{Name: ex.u.opts.Name, Msg: fmt.Sprintf("answered a tools/call with Content-Type %q", resp.Header.Get("Content-Type"))}
}

// wentAway types a failure to send or read as Call types a connection
// lost during the call (ErrUnavailable), unless ctx ended or it is
// already typed (the server's JSON-RPC error, an answer too large,
// credentials refused, an *Error).
func (ex *rawExchange) wentAway(ctx context.Context, err error) error {
	var typed *Error
	var rpc *jsonrpc.Error
	if ctx.Err() != nil || errors.As(err, &typed) || errors.As(err, &rpc) || errors.Is(err, mcpclient.ErrMessageTooLarge) || errors.Is(err, mcpclient.ErrCredentials) {
		return err
	}
	return &Error{Name: ex.u.opts.Name, Msg: "the server went away during the call: " + err.Error(), Err: errors.Join(ErrUnavailable, err)}
}

// post sends one JSON-RPC message with the headers the go-sdk client sends
// in the session (and the upstream's own, through mcpclient.WithHeaders).
func (ex *rawExchange) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ex.u.opts.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	// Once the upstream is closing, a request (a call's
	// notifications/cancelled, sent by its caller when Close no longer
	// waits for it) must not leave its connection in the pool: Close has
	// emptied it, and taking a connection through it undoes that
	// (net/http), so it would stay open, idle, after Close.
	req.Close = ex.u.ctx.Err() != nil
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", ex.rev)
	if ex.sid != "" {
		req.Header.Set("Mcp-Session-Id", ex.sid)
	}
	return mcpclient.WithHeaders(ex.u.base, ex.u.opts.Headers).RoundTrip(req)
}

// status turns an answer other than 200 into an error.
func (ex *rawExchange) status(resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusNotFound:
		if ex.sid != "" {
			return &Error{Name: ex.u.opts.Name, Msg: "the server no longer knows the session (404)", Err: ErrSessionExpired}
		}
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &Error{Name: ex.u.opts.Name, Msg: fmt.Sprintf("answered a tools/call with %s: %s", resp.Status, bytes.TrimSpace(b))}
}

// rawMessage is any JSON-RPC message of the answer.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// response reads the JSON body answering the request.
func (ex *rawExchange) response(b []byte) (json.RawMessage, error) {
	if res, ok := ex.plain(b); ok {
		return res, nil
	}
	if repl, _ := mcpclient.AnswerBody(b, ex.id); repl != nil {
		b = repl // as the go-sdk client's transport reads it
	}
	var m rawMessage
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&m); err != nil { // its first value, as the go-sdk reads it
		return nil, &Error{Name: ex.u.opts.Name, Msg: "answered a tools/call with invalid JSON: " + err.Error(), Err: err}
	}
	if m.Error != nil {
		return nil, m.Error
	}
	if len(m.Result) == 0 {
		return nil, &Error{Name: ex.u.opts.Name, Msg: "answered a tools/call with neither result nor error"}
	}
	return m.Result, nil
}

// plain returns the result of b when b is a plain response
// (mcpclient.PlainResponse) to the request, read once: the result's bytes
// (sharing b) and, in ex.parsed, its parse.
func (ex *rawExchange) plain(b []byte) (json.RawMessage, bool) {
	id, res, ok := mcpclient.PlainResponse(b)
	if !ok || !bytes.Equal(b[id.Start:id.End], ex.id) {
		return nil, false
	}
	ex.parsed = res
	return b[res.Start:res.End], true
}

// capped reads at most left bytes; one more is ErrMessageTooLarge.
type capped struct {
	r    io.Reader
	left int
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", mcpclient.ErrMessageTooLarge, mcpclient.MaxMessageSize)
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= n
	return n, err
}

// cancelled tells the server the request is abandoned (MCP 2025-11-25
// basic/utilities/cancellation), within cancelWait: also when the
// upstream is being closed, so that its tool does not run on for a
// gateway that has gone.
func (ex *rawExchange) cancelled(cause error) {
	reason := "the client cancelled the request"
	switch {
	case errors.Is(cause, ErrTimeout):
		reason = "timed out"
	case errors.Is(cause, errClosing):
		reason = "the gateway is closing its connection"
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ex.u.ctx), cancelWait)
	defer cancel()
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":%q}}`, ex.id, reason)
	if resp, err := ex.post(ctx, body); err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
	}
}

// cancelWait bounds sending notifications/cancelled (a var for tests).
var cancelWait = 5 * time.Second

// idleConnsPerUpstream is how many idle keep-alive connections an HTTP
// upstream's transport keeps (net/http keeps 2 by default): with more
// concurrent calls than that, each call beyond them opened and closed a
// connection (BenchmarkFastHTTPPreview, clients=8: process CPU per call
// through the fast path 1276 → 778 µs, direct/gateway-cpu 0.70 → 0.81).
const idleConnsPerUpstream = 64
