package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// Helpers of the gateway tests built on internal/upstreamtest: a mutable
// upstream served over loopback HTTP or as the stdio program, and go-sdk
// clients connected to the gateway.

// upstreamURL serves u over streamable HTTP on a loopback test server and
// returns its URL.
func upstreamURL(t testing.TB, u *upstreamtest.Upstream) string {
	t.Helper()
	hs := httptest.NewServer(u.HTTPHandler())
	t.Cleanup(func() {
		u.Release() // a blocked call whose cancellation never came
		hs.CloseClientConnections()
		hs.Close()
		u.Crash() // sessions whose client never said goodbye
	})
	return hs.URL
}

// mutableProgram returns the path of internal/upstreamtest/cmd/mutableupstream,
// built once per test binary; it skips the test under -short (building
// and starting a program).
func mutableProgram(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts a program")
	}
	return builtProgram(t, "../internal/upstreamtest/cmd/mutableupstream")
}

// gatewayClient connects a go-sdk client to s over an in-memory pipe
// served by ConnectStream (framed as stdio, with the fast path).
func gatewayClient(t *testing.T, s *Server) *sdkClient {
	t.Helper()
	return gatewayClientAt(t, s, "")
}

// gatewayClientAt is gatewayClient asking for revision rev ("": the
// go-sdk's newest, whose calls the fast path leaves to the go-sdk).
func gatewayClientAt(t *testing.T, s *Server, rev string) *sdkClient {
	t.Helper()
	_, c := streamPipe(t, s)
	return newSDKClient(t, &mcp.IOTransport{Reader: c, Writer: c}, rev)
}

// echoed decodes a call result's structured content as an object.
func echoed(res *mcp.CallToolResult) map[string]any {
	data, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return m
}

// resultText is the first text block of a result ("" when none).
func resultText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// viaMemory makes the upstreams named in ups reach their mutable upstream
// over in-memory pipes spoken as stdio (a new server session per
// connection), so the gateway reads and writes lines as it does with a
// stdio server; the config still names them with stdio or http.
func viaMemory(ups map[string]*upstreamtest.Upstream) func(*testOptions) {
	return func(o *testOptions) {
		o.upstreamPipe = func(name string) func() (io.ReadWriteCloser, error) {
			u := ups[name]
			if u == nil {
				return nil
			}
			return func() (io.ReadWriteCloser, error) { return u.Pipe(context.Background()) }
		}
	}
}

// waitCall retries try until it returns nil, failing the test with its last
// error when that takes longer than waitLong.
func waitCall(t testing.TB, what string, try func() error) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		err := try()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s; last: %v", waitLong, what, err)
		}
		time.Sleep(time.Millisecond)
	}
}
