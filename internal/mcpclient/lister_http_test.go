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

// TestTapBodySmallResponseAllocatesLittle: tapBody, which holds each
// message back until it is complete, made room for 32 KiB at each read, so
// that every response to a call, however small, cost two buffers: about
// 82,000 bytes allocated for a 90-byte response (before it held nothing
// back: about 450 bytes). Now its buffer starts small and doubles. Not
// parallel: it counts the bytes the whole program allocates.
func TestTapBodySmallResponseAllocatesLittle(t *testing.T) {
	resp := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`
	// The request the body answers: the body is checked to be its
	// response (AnswerBody), without the go-sdk's decoder (32 KiB for
	// each message: 67,700 bytes per response).
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
	for _, jsonBody := range []bool{true, false} {
		body := "event: message\nid: 1\ndata: " + resp + "\n\n"
		if jsonBody {
			body = resp
		}
		const calls = 100
		n := allocated(func() {
			for range calls {
				b := &tapBody{ReadCloser: io.NopCloser(strings.NewReader(body)), c: newCapture(), json: jsonBody, req: req}
				if _, err := io.Copy(io.Discard, b); err != nil {
					t.Fatal(err)
				}
			}
		})
		t.Logf("JSON body %v: %d bytes allocated per response of %d bytes", jsonBody, n/calls, len(body))
		// About 1,300 bytes (4,300 under the race detector), well below
		// the 32 KiB one read made room for.
		if n/calls > 16<<10 {
			t.Errorf("JSON body %v: %d bytes allocated per response of %d bytes, want at most 16 KiB", jsonBody, n/calls, len(body))
		}
	}
}

// TestTapBodyPassesACompleteEventAtOnce: tapBody holds an SSE event back
// until its blank line, never longer: on the standalone GET stream a
// notifications/tools/list_changed must reach the go-sdk while the
// server sends nothing more (the stream stays open).
func TestTapBodyPassesACompleteEventAtOnce(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	defer w.Close()
	event := "id: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\r\n\r\n"
	go func() {
		_, _ = io.WriteString(w, ": open\n\n")
		for i := range event { // a byte at a time
			_, _ = io.WriteString(w, event[i:i+1])
		}
	}()
	b := &tapBody{ReadCloser: r, c: newCapture()}
	var got []byte
	for len(got) < len(": open\n\n")+len(event) {
		p := make([]byte, 4096)
		n, err := b.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p[:n]...)
	}
	if string(got) != ": open\n\n"+event {
		t.Errorf("passed on %q", got)
	}
}

// TestTapBodyLargeEventAllocatesLinearly: an SSE event of 16 MiB (a large
// tools/call result) made the tap allocate 145 MiB: the line being read
// grew 32 KiB at a time (each growth a copy) and the complete event was
// copied again to what the go-sdk reads. Now the line's room doubles and
// an event passed on as it came is handed over without a copy: 61 MiB.
func TestTapBodyLargeEventAllocatesLinearly(t *testing.T) {
	resp := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 16<<20) + `"}]}}`
	body := "event: message\ndata: " + resp + "\n\n"
	n := allocated(func() {
		b := &tapBody{ReadCloser: io.NopCloser(strings.NewReader(body)), c: newCapture()}
		if _, err := io.Copy(io.Discard, b); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%d MiB allocated for an event of %d MiB", n>>20, len(body)>>20)
	if n > 5*uint64(len(body)) {
		t.Errorf("%d MiB allocated for an event of %d MiB, want at most 5 times its size", n>>20, len(body)>>20)
	}
}
