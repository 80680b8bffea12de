package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/toolset"
)

// TestIssue10Item8ClientConfigEnv: a stdio server of a client configuration
// runs with the file's env (here the variable that makes this test binary
// the fake server) and the set is named client-config:FILE#NAME.
func TestIssue10Item8ClientConfigEnv(t *testing.T) {
	t.Parallel()
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fake": map[string]any{
		"command": os.Args[0], "env": map[string]string{fakeEnv: "raw", "GORACE": "atexit_sleep_ms=0"}}}})
	servers, err := toolset.DecodeClientConfig("claude.json", doc)
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
	cs := toolset.ClientServer{Name: "x", Workspace: "/w", Command: []string{"${workspaceFolder}/bin/srv", "--home=${userHome}", "${MODE:-dev}"},
		Env: []string{"API_TOKEN=${env:TOKEN}"}}
	if err := expandClientVars(&cs, lookup); err != nil {
		t.Fatal(err)
	}
	want := toolset.ClientServer{Name: "x", Workspace: "/w", Command: []string{"/w/bin/srv", "--home=/home/u", "dev"}, Env: []string{"API_TOKEN=t0k"}}
	if d := cmp.Diff(want, cs); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	for _, arg := range []string{"${input:pat}", "${env:MISSING}", "${MISSING}"} {
		bad := toolset.ClientServer{Name: "x", Command: []string{"srv", arg}}
		if err := expandClientVars(&bad, lookup); err == nil || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s: err %v, want an error naming it", arg, err)
		}
	}
}
