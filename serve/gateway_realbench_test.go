package serve

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkGatewayRealUpstream is BenchmarkGateway's call comparison with
// an upstream that does real work: the real server-filesystem 2025.11.25
// (node, over stdio, from e2e/node_modules) reading a small file. Direct
// clients reach their own server process over stdio; gateway clients reach
// the gateway over an in-memory pipe framed as stdio (ConnectStream: the
// fast path, as stdio runs it), and the gateway the same server release
// over stdio. Reported as BenchmarkGateway's (gateway/direct-throughput,
// added-p99-ms, …). It skips without the npm packages unless MCPCTL_E2E=1.
func BenchmarkGatewayRealUpstream(b *testing.B) {
	modules := e2eModules(b, "fs-new")
	data := b.TempDir()
	file := writeFile(b, data, "hello.txt", "hello from the gateway benchmark\n")
	server := filepath.Join(modules, "fs-new", "dist", "index.js")
	gw := benchGatewayConfig(b, fmt.Sprintf("server: {name: gateway-bench, version: 1.0.0}\nupstreams:\n  - name: files\n    stdio: [node, %q, %q]\n", server, data))
	direct := func(b *testing.B) (*mcp.ClientSession, func()) {
		t := &mcp.CommandTransport{Command: exec.Command("node", server, data)}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close() }
	}
	read := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": file}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call failed: %s", resultText(res))
		}
		return err
	}
	// One client: a stdio server serves one session, so more direct
	// clients would mean more node processes than the gateway's one.
	b.Run("call/stdio/clients=1", func(b *testing.B) {
		benchVersus(b, 1, direct, overStream(gw), read)
	})
}

// benchGatewayConfig is a gateway serving the config text.
func benchGatewayConfig(b *testing.B, config string) *Server {
	s, err := New(context.Background(), Options{ConfigPath: writeFile(b, b.TempDir(), "gw.yaml", config)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}
