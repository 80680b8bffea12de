package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
)

// TestNewcomerUpstreamInvalidToolSaysExclude (reproduction: npx -y
// @modelcontextprotocol/server-filesystem@2025.8.18 today resolves a newer
// zod, and its tools list an inputSchema of only {"$schema": …}). The
// gateway refused to start with lint's advice to the schema's author
// ("add it, with the properties the tool accepts"), which an operator
// fronting a server they do not own cannot follow. The error also says
// what they can do: leave the tool out by its upstream name, or run a
// release that lists it valid.
func TestNewcomerUpstreamInvalidToolSaysExclude(t *testing.T) {
	t.Parallel()
	files := newFakeUpstream(t)
	files.set("list_directory", "Lists.", `{"type":"object"}`)
	// The go-sdk server refuses such a schema in AddTool; the list says it.
	files.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				for i, tool := range lr.Tools {
					if tool.Name == "list_directory" {
						c := *tool
						c.InputSchema = json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#"}`)
						lr.Tools[i] = &c
					}
				}
			}
			return res, err
		}
	})
	path := writeFile(t, t.TempDir(), "gw.yaml", "upstreams:\n  - name: fs\n    stdio: [fake-upstream]\n    prefix: fs_\n")
	o := testOptions{Options: Options{ConfigPath: path, Clock: clocktest.New(testNow)}}
	useFakes(map[string]*fakeUpstream{"fs": files})(&o)
	s, err := newTestServer(context.Background(), o)
	if err == nil {
		s.Close()
		t.Fatal("a gateway whose upstream lists an invalid tool started")
	}
	want := filepath.Base(path) + `:2:5: tool "fs_list_directory": /inputSchema: upstream "fs": "inputSchema" has no "type"`
	remedy := `(input-schema-not-object); it is the upstream's tool "list_directory": leave it out with tools: {exclude: [list_directory]}, or run a release of the server whose tool is valid`
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), remedy) {
		t.Errorf("error:\n%v\nwant %q and %q", err, want, remedy)
	}
}
