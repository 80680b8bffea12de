package serve

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// heldAnswer is a stdio output that holds the first write holding
// match: the line reaches the client, then the write returns only when
// release is closed. The server has then written an answer the client
// has read, and has not yet finished writing it.
type heldAnswer struct {
	w       io.Writer
	match   []byte
	once    sync.Once
	release chan struct{}
}

func (h *heldAnswer) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	if bytes.Contains(p, h.match) {
		h.once.Do(func() { <-h.release })
	}
	return n, err
}

// TestStdioIDReusedRightAfterItsAnswer reproduces a dropped request: a
// stdio client sent its next tools/call with the id of the call whose
// answer it had just read, and got no answer at all. The fast path
// forgot a call's id only once the write of its answer had returned, and
// until then dropped a request reusing it as one reusing the id of a
// request in flight; the go-sdk forgets an id before it writes the
// answer (its jsonrpc2: the client may reuse the id as soon as the
// response is sent). .ci/run failed once on this race in
// TestMaxCallsBatchAtTheBound. Such a client breaks MCP (2025-11-25
// basic: a request id MUST NOT have been used before by the requestor in
// the session), but the go-sdk serves it, and a client must not tell the
// gateway from the upstream. The answer's write is held here until the
// reused request has been read, so the race is lost every time.
func TestStdioIDReusedRightAfterItsAnswer(t *testing.T) {
	t.Parallel()
	s, _ := maxCallsGateway(t, 0)
	held := &heldAnswer{match: []byte(`"id":1,"result"`), release: make(chan struct{})}
	p := runStdioPipe(t, s, func(w io.Writer) io.Writer { held.w = w; return held })
	p.initialize("2025-11-25")
	// Calls go to the go-sdk until it has taken notifications/initialized.
	for i := 0; s.fastCalls.Load() == 0; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"warm-%d","method":"tools/call","params":{"name":"echo","arguments":{}}}`, i))
		p.recv()
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"%s"}}}`
	p.send(strings.Replace(call, "%s", "first", 1))
	if got := p.recv(); !strings.Contains(got, "first") {
		t.Fatalf("the first call was answered %s", got)
	}
	p.send(strings.Replace(call, "%s", "again", 1))
	// A write returns once the server read the line, so the reused
	// request has been read (and taken or dropped) when this one returns.
	p.send(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	close(held.release)
	got := []string{p.recv(), p.recv()}
	if !strings.Contains(got[0]+got[1], `"again"`) {
		t.Errorf("the call reusing id 1 right after its answer got no answer; the server wrote %q", got)
	}
}

// TestStdioIDReusedEndOfInputWaitsForItsAnswer: a request reusing the id
// of one whose answer is being written is still waited for at the end of
// input. The reproduction: a ping's answer was being written when the
// client, having read it, sent a tools/call with the ping's id and closed
// its input; the write of the ping's answer returned and forgot the id,
// which the tools/call shared, so the end of input found nothing
// unanswered, the session ended and the call's answer was lost.
func TestStdioIDReusedEndOfInputWaitsForItsAnswer(t *testing.T) {
	t.Parallel()
	s, _ := maxCallsGateway(t, 0)
	held := &heldAnswer{match: []byte(`"id":1,"result":{}`), release: make(chan struct{})}
	p := runStdioPipe(t, s, func(w io.Writer) io.Writer { held.w = w; return held })
	p.initialize("2025-11-25")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if got := p.recv(); !strings.Contains(got, `"id":1,"result":{}`) {
		t.Fatalf("the ping was answered %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"after"}}}`)
	_ = p.in.Close()
	close(held.release)
	// stdout stays open until the test ends: the answer comes, or nothing.
	timeout := time.After(waitLong)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, `"after"`) {
				return
			}
		case <-timeout:
			t.Fatal("the call reusing the ping's id was not answered before the session ended")
		}
	}
}
