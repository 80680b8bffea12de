package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// bogusRevision answers every initialize on its connections with the
// protocol revision 1999-01-01 (no MCP revision), then stops answering.
func bogusRevision(t *testing.T) func() mcp.Transport {
	return func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		go func() {
			conn, err := st.Connect(context.Background())
			if err != nil {
				return
			}
			defer conn.Close()
			for {
				msg, err := conn.Read(context.Background())
				if err != nil {
					return
				}
				req, ok := msg.(*jsonrpc.Request)
				if !ok || req.Method != "initialize" {
					continue
				}
				res, _ := json.Marshal(map[string]any{"protocolVersion": "1999-01-01", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "bogus", "version": "1"}})
				if conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: res}) != nil {
					return
				}
			}
		}()
		return ct
	}
}

// TestAdversarialGatewayUnknownProtocolRevision: an upstream that answers
// initialize with a revision no MCP specification has must fail the start
// with an error located at its upstreams entry, in bounded time.
func TestAdversarialGatewayUnknownProtocolRevision(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", "upstreams:\n  - name: bogus\n    stdio: [bogus]\n    timeout: 2s\n")
	_, err := newTestServer(context.Background(), testOptions{Options: Options{ConfigPath: path},
		hooks: hooks{upstreamTransport: func(string) func() mcp.Transport { return bogusRevision(t) }}})
	var ue *upstream.Error
	if err == nil || !strings.Contains(err.Error(), path+":2:5:") || !errors.As(err, &ue) || ue.Name != "bogus" {
		t.Fatalf("start: %v, want a located *upstream.Error of upstream \"bogus\"", err)
	}
}
