package serve

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// TestAdversarialGatewayHTTPUpstreamGone: an HTTP upstream whose server
// disappears: calls get the gateway's "upstream unavailable" error, not a
// transport error, and the gateway keeps serving.
func TestAdversarialGatewayHTTPUpstreamGone(t *testing.T) {
	t.Parallel()
	u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
	hs := httptest.NewServer(u.HTTPHandler())
	t.Cleanup(u.Crash)
	s, _ := startServer(t, "upstreams:\n  - name: web\n    http: {url: '"+hs.URL+"'}\n    timeout: 2s\n", func(o *testOptions) { o.UpstreamBackoff = 10 * time.Millisecond })
	cs := connectSDK(t, s, nil)
	if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); isErr {
		t.Fatalf("echo: %s", text)
	}
	hs.CloseClientConnections()
	hs.Close()
	u.Crash()
	var last string
	waitUntil(t, "the unavailable error", func() bool {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		last = resultText(res)
		return res.IsError && strings.Contains(last, "unavailable")
	})
}

// TestGatewayHTTPUpstreamCloseDuringCall: closing the gateway while a call
// to an HTTP upstream waits for an answer that will not come (a tool that
// runs until cancelled; the upstream's timeout is 60 s) must end the call
// as "upstream unavailable" at once, and tell the upstream. Reproduction:
// on the fast path (a 2025-11-25 client, the raw HTTP call) Close returned
// after 5 s, the upstream's DELETE of the session waiting for its tool,
// and left the call running: the client had no answer until the 60 s
// timeout. Over stdio this was fixed earlier
// (TestAdversarialStallServerCloses).
func TestGatewayHTTPUpstreamCloseDuringCall(t *testing.T) {
	t.Parallel()
	for name, rev := range map[string]string{"fast-path": "2025-11-25", "go-sdk-path": sdkDefaultRevision} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
			url := upstreamURL(t, u)
			s, _ := startServer(t, "upstreams:\n  - name: web\n    http: {url: '"+url+"'}\n    timeout: 60s\n")
			cs := streamClient(t, s, rev)
			called := make(chan string, 1)
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: upstreamtest.SlowTool, Arguments: map[string]any{}})
				called <- fmt.Sprint(outcome(res, err))
			}()
			select {
			case <-u.SlowStarted():
			case <-time.After(waitLong):
				t.Fatal("the slow call never reached the upstream")
			}
			closed := make(chan struct{})
			go func() {
				s.Close()
				close(closed)
			}()
			select {
			case got := <-called:
				if !strings.Contains(got, "closed during the call") {
					t.Errorf("the call under way got %s, want the upstream closed during the call", got)
				}
			case <-time.After(waitLong):
				t.Fatalf("the call under way had no answer %v after Close (the upstream's timeout is 60s)", waitLong)
			}
			select {
			case <-closed:
			case <-time.After(waitLong):
				t.Fatalf("Close did not return in %v with a call to an HTTP upstream under way", waitLong)
			}
			select {
			case <-u.Cancelled():
			case <-time.After(waitLong):
				t.Fatal("the upstream was never told the call was cancelled")
			}
		})
	}
}
