package serve

import (
	"context"
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
