package mcpclient

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// countingBody counts the bytes read from r.
type countingBody struct {
	r io.Reader
	n int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingBody) Close() error { return nil }

type bodyTransport struct {
	contentType string
	body        io.ReadCloser
}

func (t bodyTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {t.contentType}}, Body: t.body}, nil
}

// TestAdversarialGatewayHTTPHugeResponse: an HTTP upstream whose answer
// has no end (a tools/call result of 1 GB as one JSON body, or an SSE
// line that never ends) must not be read into memory: the response is cut
// with ErrMessageTooLarge after MaxMessageSize bytes. Before, the capture
// kept the whole body (and the go-sdk reads a JSON body whole).
func TestAdversarialGatewayHTTPHugeResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, contentType, start string }{
		{"json", "application/json", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`},
		{"sse", "text/event-stream", `data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &countingBody{r: io.MultiReader(strings.NewReader(tc.start), repeatReader('x', 2*MaxMessageSize, `"}]}}`))}
			tap := &httpTap{base: bodyTransport{tc.contentType, body}, c: newCapture()}
			req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/mcp", nil)
			resp, err := tap.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, resp.Body)
			if !errors.Is(err, ErrMessageTooLarge) {
				t.Errorf("err = %v, want ErrMessageTooLarge", err)
			}
			if body.n > MaxMessageSize+1<<20 {
				t.Errorf("read %d MiB of the body", body.n>>20)
			}
		})
	}
}
