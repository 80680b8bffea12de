package mcpclient

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPTransport returns a streamable HTTP client transport (MCP 2025-11-25
// basic/transports) to url whose tools/list results List reads as sent.
// Unlike Transport, it watches the HTTP exchanges instead of wrapping the
// connection, so the go-sdk keeps its session hook: the standalone SSE
// stream is opened and server notifications (list_changed) arrive. h is
// sent with every request (see WithHeaders); base is http.DefaultTransport
// when nil.
func (l *Lister) HTTPTransport(url string, base http.RoundTripper, h http.Header) mcp.Transport {
	return &mcp.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: &httpTap{base: WithHeaders(base, h), c: l.c}},
		MaxRetries: 2,
	}
}

// httpTap shows a capture the JSON-RPC requests posted and the responses
// and notifications received, in a JSON body or an SSE stream.
type httpTap struct {
	base http.RoundTripper
	c    *capture
}

func (t *httpTap) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Method == http.MethodPost && req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		if t.c.mayExpect(body) {
			if msg, err := jsonrpc.DecodeMessage(body); err == nil {
				if r, ok := msg.(*jsonrpc.Request); ok {
					t.c.expect(r)
				}
			}
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	switch MediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		resp.Body = &tapBody{ReadCloser: resp.Body, c: t.c, json: true, req: body}
	case "text/event-stream":
		resp.Body = &tapBody{ReadCloser: resp.Body, c: t.c}
	}
	return resp, nil
}

// tapBody passes a response body through and hands each JSON-RPC message
// in it to the capture: the whole body (JSON) at its end, or each SSE
// event's data (WHATWG HTML, server-sent events) as it completes. It holds
// each message back until it is complete, so that one nested too deep
// for the go-sdk reaches it as TooDeep's replacement: a JSON body whole,
// an SSE event's lines until the blank line that ends it.
type tapBody struct {
	io.ReadCloser
	c    *capture
	json bool
	req  []byte // the request a JSON body answers, as posted
	in   []byte // a JSON body, or the SSE line not yet complete
	// seen is how much of in has no newline (events scans on from there).
	seen  int
	event []byte   // the lines of the SSE event being read
	ev    SSEEvent // that event as read
	out   []byte   // what the go-sdk has yet to read
	err   error    // the body's read error, once out is read
}

// tapMin is the least room tapBody makes for a read (a small response
// fits in it); the room then doubles with what it holds, so that a line
// of n bytes costs O(n) to gather.
const tapMin = 512

// Read passes the body through; a JSON body, or an SSE line or event,
// longer than MaxMessageSize ends it with ErrMessageTooLarge.
func (b *tapBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		b.fill()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	if len(b.out) == 0 {
		return n, b.err
	}
	return n, nil
}

// fill reads the body once and moves what is complete to out.
func (b *tapBody) fill() {
	// One byte beyond the limit tells a message longer than it.
	limit := MaxMessageSize + 1 - len(b.in) - len(b.event)
	if len(b.in) == cap(b.in) { // in doubles from tapMin, as a body needs
		b.in = slices.Grow(b.in, min(max(len(b.in), tapMin), limit))
	}
	n, err := b.ReadCloser.Read(b.in[len(b.in):min(cap(b.in), len(b.in)+limit)])
	b.in = b.in[:len(b.in)+n]
	if len(b.in)+len(b.event) > MaxMessageSize {
		b.err = fmt.Errorf("%w (%d bytes)", ErrMessageTooLarge, MaxMessageSize)
		return
	}
	switch {
	case b.json && err != nil:
		b.out = b.message(b.in, b.in)
		b.in = nil
	case !b.json:
		b.events()
		if err != nil {
			b.end(err)
		}
	}
	b.err = err
}

// end passes on the event the body ends in: at the end of the stream the
// go-sdk dispatches it (and reads a last line without newline), so it is
// complete; after a read error it does not, and it is passed on as it
// came.
func (b *tapBody) end(err error) {
	if err != io.EOF {
		b.out = append(append(b.out, b.event...), b.in...)
		b.event, b.in = nil, nil
		return
	}
	if len(b.in) > 0 {
		b.line(b.in)
		b.in = nil
	}
	if len(b.event) > 0 {
		b.dispatch()
	}
}

// events moves the complete lines of in to the event being read, and the
// events they complete to out.
func (b *tapBody) events() {
	for {
		i := bytes.IndexByte(b.in[b.seen:], '\n')
		if i < 0 {
			b.seen = len(b.in)
			return
		}
		i += b.seen
		b.seen = 0
		b.line(b.in[:i+1])
		b.in = b.in[i+1:]
	}
}

// line adds raw, a line of the stream with its line ending, to the event
// being read, or, when it is blank, moves that event and raw to out. A
// line the go-sdk would refuse is passed on as SSEEvent reads it
// (SSELine).
func (b *tapBody) line(raw []byte) {
	raw = SSELine(raw)
	if b.ev.Line(raw) {
		b.dispatch()
		b.out = append(b.out, raw...)
		return
	}
	b.event = append(b.event, raw...)
}

// dispatch moves the event being read to out: its message (message) when
// it carries one for the go-sdk, else as it came (the go-sdk skips it,
// and so does the capture).
func (b *tapBody) dispatch() {
	out := b.event
	if b.ev.Message() {
		out = b.message(b.ev.Data, b.event)
	}
	if len(b.out) == 0 && len(out) > 0 && len(out) == len(b.event) && &out[0] == &b.event[0] {
		// The event goes on as it came and nothing waits before it: its
		// buffer becomes out's (a large event is not copied again).
		b.out, b.event = b.event, b.out[:0]
	} else {
		b.out = append(b.out, out...)
		b.event = b.event[:0]
	}
	b.ev.Reset()
}

// message hands the capture msg, a JSON body or an SSE event's data, and
// returns what the go-sdk reads of it: whole (the body, or the event's
// lines), or the replacement: the body's (AnswerBody), or the event's
// lines with its data replaced (EventMessage; none when dropped).
func (b *tapBody) message(msg, whole []byte) []byte {
	if b.json {
		return b.body(msg)
	}
	repl, why := EventMessage(msg)
	b.deliver(repl)
	if why == "" {
		return whole
	}
	var ev []byte
	for line := range bytes.Lines(whole) {
		if !bytes.HasPrefix(line, []byte("data:")) {
			ev = append(ev, line...)
			if !bytes.HasSuffix(line, []byte("\n")) { // the stream's last line
				ev = append(ev, '\n')
			}
		}
	}
	if repl != nil {
		ev = append(append(append(ev, "data: "...), repl...), '\n')
	}
	return ev
}

// body is message for a JSON body: the body, or AnswerBody's replacement
// of it.
func (b *tapBody) body(msg []byte) []byte {
	id, _, _ := topMembers(b.req)
	if repl, _ := AnswerBody(msg, id); repl != nil {
		msg = repl
	}
	b.deliver(msg)
	return msg
}

func (b *tapBody) deliver(data []byte) {
	if len(data) == 0 || !b.c.wants() {
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		b.c.received(m)
	case *jsonrpc.Request:
		b.c.progress.read(m)
	}
}

// MediaType is the media type of a Content-Type value (RFC 9110 §8.3.1),
// parsed only when it has parameters; "" when it does not parse.
func MediaType(ct string) string {
	switch ct {
	case "application/json", "text/event-stream":
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "" // as go-sdk reads it (mime returns the type of some invalid values)
	}
	return mt
}

// mayExpect reports whether a posted body may be a request the capture
// keeps (initialize, tools/list, or a tools/call while progress is
// watched): the go-sdk writes method names unescaped, so a body without
// the quoted name is not decoded (most tools/call requests).
func (c *capture) mayExpect(body []byte) bool {
	return bytes.Contains(body, []byte(`"initialize"`)) || bytes.Contains(body, []byte(`"tools/list"`)) ||
		(c.progress.watching() && bytes.Contains(body, []byte(`"tools/call"`)))
}

// wants reports whether a message read now can matter to the capture: a
// request it keeps awaits its response, or progress is watched. Other
// messages are not decoded twice.
func (c *capture) wants() bool {
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	return n > 0 || c.progress.watching()
}
