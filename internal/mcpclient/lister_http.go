package mcpclient

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"

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
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(req.Body)
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
		resp.Body = &tapBody{ReadCloser: resp.Body, c: t.c, json: true}
	case "text/event-stream":
		resp.Body = &tapBody{ReadCloser: resp.Body, c: t.c}
	}
	return resp, nil
}

// tapBody passes a response body through and hands each JSON-RPC message
// in it to the capture: the whole body (JSON) at its end, or each SSE
// event's data (WHATWG HTML, server-sent events) as it completes.
type tapBody struct {
	io.ReadCloser
	c    *capture
	json bool
	buf  []byte // a JSON body, or the SSE line not yet complete
	data []byte // the data lines of the SSE event being read
	// seen is how much of buf has no newline (events scans on from there).
	seen int
}

// Read passes the body through; a JSON body, or an SSE line or event,
// longer than MaxMessageSize ends it with ErrMessageTooLarge.
func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if len(b.buf)+len(b.data)+n > MaxMessageSize {
		return n, fmt.Errorf("%w (%d bytes)", ErrMessageTooLarge, MaxMessageSize)
	}
	b.buf = append(b.buf, p[:n]...)
	if b.json {
		if err == io.EOF {
			b.deliver(b.buf)
		}
		return n, err
	}
	b.events()
	return n, err
}

// events consumes the complete lines of buf.
func (b *tapBody) events() {
	for {
		i := bytes.IndexByte(b.buf[b.seen:], '\n')
		if i < 0 {
			b.seen = len(b.buf)
			return
		}
		i += b.seen
		b.seen = 0
		line := bytes.TrimSuffix(b.buf[:i], []byte("\r"))
		switch {
		case len(line) == 0:
			b.deliver(b.data)
			b.data = b.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
		b.buf = b.buf[i+1:]
	}
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
