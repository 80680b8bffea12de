package toolset

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIssue10Item8ClientConfigSource: the shapes desktop and IDE clients
// write are read into servers, in file order.
func TestIssue10Item8ClientConfigSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc string
		want      []ClientServer
	}{
		{"claude desktop", `{"mcpServers":{"fs":{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"env":{"B":"2","A":"1"}},"remote":{"url":"https://example.com/mcp"}}}`,
			[]ClientServer{{Name: "fs", Command: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: []string{"B=2", "A=1"}}, {Name: "remote", URL: "https://example.com/mcp"}}},
		{"vscode mcp.json", `{"inputs":[],"servers":{"gh":{"type":"http","url":"https://api.example.com/mcp/","headers":{"Authorization":"Bearer ${input:pat}"}},"mem":{"type":"stdio","command":"mem-server"}}}`,
			[]ClientServer{{Name: "gh", URL: "https://api.example.com/mcp/", Headers: []string{"Authorization: Bearer ${input:pat}"}}, {Name: "mem", Command: []string{"mem-server"}}}},
		{"vscode settings.json", `{"editor.tabSize":2,"mcp":{"servers":{"x":{"command":"x"}}}}`,
			[]ClientServer{{Name: "x", Command: []string{"x"}}}},
		{"windsurf serverUrl", `{"mcpServers":{"w":{"serverUrl":"http://127.0.0.1:1/mcp"}}}`,
			[]ClientServer{{Name: "w", URL: "http://127.0.0.1:1/mcp"}}},
	} {
		got, err := DecodeClientConfig("c.json", []byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.name, d)
		}
	}
	for _, bad := range []string{`{"tools":[]}`, `{"mcpServers":{"x":{}}}`, `{"mcpServers":{"x":{"command":"a","env":{"K":1}}}}`, `{"servers":{"old":{"type":"sse","url":"http://h/sse"}}}`} {
		if _, err := DecodeClientConfig("c.json", []byte(bad)); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", bad, err)
		}
	}
}
