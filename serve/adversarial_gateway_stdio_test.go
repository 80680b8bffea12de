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

// TestAdversarialGatewayStdioChildHoldsStdout: a stdio upstream that
// forked a child holding its stdout open (sh -c 'sleep 300 & exec
// server'), then crashed: its stdout never reaches end of file, yet the
// gateway must see the crash, restart it and serve calls again; garbage
// written to stdout before the server starts is skipped.
func TestAdversarialGatewayStdioChildHoldsStdout(t *testing.T) {
	t.Parallel()
	bin := mutableProgram(t)
	control := filepath.Join(t.TempDir(), "control.jsonl")
	script := fmt.Sprintf("echo not json-rpc; head -c 100000 /dev/zero | tr '\\\\0' x; echo; sleep 300 & exec %q -control %q -poll 5ms", bin, control)
	s, _ := startServer(t, fmt.Sprintf("upstreams:\n  - name: m\n    stdio: [sh, -c, %q]\n    timeout: 5s\n", script),
		func(o *testOptions) { o.UpstreamBackoff = time.Millisecond })
	cs := connectSDK(t, s, nil)
	call := func() *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			t.Fatalf("call: %v", err)
		}
		return res
	}
	if res := call(); res.IsError {
		t.Fatalf("echo: %s", resultText(res))
	}
	if err := upstreamtest.AppendChange(control, upstreamtest.Change{Op: upstreamtest.OpCrash}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the upstream restarted", func() bool { return s.upstreamStatus()[0].Restarts >= 1 })
	waitUntil(t, "a call through the restarted upstream", func() bool { return !call().IsError })
}
