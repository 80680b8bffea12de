package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// TestGatewayStdioUpstreamChangeAndCrash fronts the mutable upstream as a
// real child process (cmd/mutableupstream over stdio): a tool added through
// its control file reaches the client as one list_changed and is callable;
// a crash (the process exits 3) is restarted, the restarted process comes
// back with the added tool, and calls work again.
func TestGatewayStdioUpstreamChangeAndCrash(t *testing.T) {
	t.Parallel()
	bin := mutableProgram(t)
	control := filepath.Join(t.TempDir(), "control.jsonl")
	s, _ := startServer(t, fmt.Sprintf("server: {name: stdio-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    stdio: [%q, -control, %q, -poll, 5ms]\n", bin, control),
		func(o *testOptions) { o.UpstreamBackoff = time.Millisecond })
	c := gatewayClient(t, s)
	call := func(tool string) *mcp.CallToolResult {
		t.Helper()
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
		return res
	}
	if res := call("echo"); res.IsError || echoed(res)["message"] != "hi" {
		t.Fatalf("echo: %s", resultText(res))
	}
	fresh := &mcp.Tool{Name: "fresh", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}}
	if err := upstreamtest.AppendChange(control, upstreamtest.Change{Op: upstreamtest.OpAdd, Def: fresh}); err != nil {
		t.Fatal(err)
	}
	c.waitChanged(t)
	if res := call("fresh"); res.IsError {
		t.Fatalf("fresh: %s", resultText(res))
	}
	if err := upstreamtest.AppendChange(control, upstreamtest.Change{Op: upstreamtest.OpCrash}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the upstream restarted", func() bool { return s.upstreamStatus()[0].Restarts >= 1 })
	waitUntil(t, "a call through the restarted upstream", func() bool { return !call("fresh").IsError })
	if n := c.count.Load(); n != 1 {
		t.Errorf("%d list_changed, want 1 (the restart brings back the same list)", n)
	}
}
