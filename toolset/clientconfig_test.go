package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
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

// TestIssue10Item8ClientConfigEnv: a stdio server of a client configuration
// runs with the file's env (here the variable that makes this test binary
// the fake server) and the set is named client-config:FILE#NAME.
func TestIssue10Item8ClientConfigEnv(t *testing.T) {
	t.Parallel()
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
		"command": os.Args[0], "env": map[string]string{fakeEnv: "raw", "GORACE": "atexit_sleep_ms=0"}}}})
	servers, err := DecodeClientConfig("claude.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	set, err := FetchClientServer(context.Background(), "claude.json", servers[0], LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"alpha", "mid", "zeta"}, set.Names()); d != "" || set.Source != "client-config:claude.json#fake" {
		t.Errorf("source %q, names mismatch (-want +got):\n%s", set.Source, d)
	}
}

// TestIssue10Item8ClientConfigVariables: VS Code, Cursor and Claude Code
// configurations use ${…} variables, expanded as those clients do; a
// prompt (${input:…}) or an unset variable is a clear error.
func TestIssue10Item8ClientConfigVariables(t *testing.T) {
	t.Parallel()
	env := map[string]string{"TOKEN": "t0k", "HOME": "/home/u"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cs := ClientServer{Name: "x", Workspace: "/w", Command: []string{"${workspaceFolder}/bin/srv", "--home=${userHome}", "${MODE:-dev}"},
		Env: []string{"API_TOKEN=${env:TOKEN}"}}
	if err := expandClientVars(&cs, lookup); err != nil {
		t.Fatal(err)
	}
	want := ClientServer{Name: "x", Workspace: "/w", Command: []string{"/w/bin/srv", "--home=/home/u", "dev"}, Env: []string{"API_TOKEN=t0k"}}
	if d := cmp.Diff(want, cs); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	for _, arg := range []string{"${input:pat}", "${env:MISSING}", "${MISSING}"} {
		bad := ClientServer{Name: "x", Command: []string{"srv", arg}}
		if err := expandClientVars(&bad, lookup); err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s: err %v, want an error naming it", arg, err)
		}
	}
}
