package serve

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// recvAnswer is recv, skipping the server's notifications and requests.
func (p *stdioPipe) recvAnswer() string {
	p.t.Helper()
	for {
		if l := p.recv(); !strings.Contains(l, `"method":`) {
			return l
		}
	}
}

// warmFast sends tools/call requests until the fast path takes them
// (calls go to the go-sdk until it has taken notifications/initialized).
func warmFast(p *stdioPipe, s *Server) {
	for i := 0; s.fastCalls.Load() == 0; i++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"warm-%d","method":"tools/call","params":{"name":"echo","arguments":{}}}`, i))
		p.recv()
	}
}

// TestStdioIDReusedAcrossPathsRightAfterItsAnswer: the id of a call whose
// answer the client has read, its write still held, is reused at once by
// a request of the other path (a fast call, a tools/call with a progress
// token, which the go-sdk serves, a batch at 2025-03-26), and that
// request is answered.
func TestStdioIDReusedAcrossPathsRightAfterItsAnswer(t *testing.T) {
	t.Parallel()
	const (
		fast  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"%s"}}}`
		sdk   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"echo","arguments":{"message":"%s"}}}`
		batch = `[` + fast + `]`
	)
	for _, tc := range []struct{ name, rev, first, again string }{
		{"fast then sdk", "2025-11-25", fast, sdk},
		{"sdk then fast", "2025-11-25", sdk, fast},
		{"sdk then sdk", "2025-11-25", sdk, sdk},
		{"fast then batch", "2025-03-26", fast, batch},
		{"sdk then batch", "2025-03-26", sdk, batch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := maxCallsGateway(t, 0)
			held := &heldAnswer{match: []byte(`"id":1,"result"`), release: make(chan struct{})}
			p := runStdioPipe(t, s, func(w io.Writer) io.Writer { held.w = w; return held })
			var release sync.Once
			t.Cleanup(func() { release.Do(func() { close(held.release) }) })
			p.initialize(tc.rev)
			warmFast(p, s)
			p.send(strings.Replace(tc.first, "%s", "first", 1))
			if got := p.recvAnswer(); !strings.Contains(got, "first") {
				t.Fatalf("the first call was answered %s", got)
			}
			p.send(strings.Replace(tc.again, "%s", "again", 1))
			p.send(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
			release.Do(func() { close(held.release) })
			got := []string{p.recvAnswer(), p.recvAnswer()}
			if !strings.Contains(got[0]+got[1], `"again"`) {
				t.Errorf("the request reusing id 1 right after its answer got no answer; the server wrote %q", got)
			}
		})
	}
}
