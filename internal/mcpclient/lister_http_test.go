package mcpclient

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestTapBodySSEEventsSplitAcrossReads: events arrive in pieces that cut
// lines and CRLFs anywhere; every response is captured once, whole, and
// the stream is passed on as it came.
func TestTapBodySSEEventsSplitAcrossReads(t *testing.T) {
	t.Parallel()
	c := newCapture()
	for _, id := range []int64{1, 2} {
		rid, _ := jsonrpc.MakeID(float64(id))
		c.expect(&jsonrpc.Request{ID: rid, Method: "tools/list"})
	}
	stream := "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{\"tools\":[]}}\r\n\r\n" +
		": comment\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"a\"}]}}\n\n"
	b := &tapBody{ReadCloser: io.NopCloser(&chunked{s: stream, n: 7}), c: c}
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != stream {
		t.Errorf("passed on %q, want the stream as it came", got)
	}
	pages := c.takePages()
	if len(pages) != 2 || string(pages[0]) != `{"tools":[]}` || !strings.Contains(string(pages[1]), `"name":"a"`) {
		t.Errorf("pages = %q", pages)
	}
}

// chunked reads s n bytes at a time.
type chunked struct {
	s string
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}
