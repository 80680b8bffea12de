package cmd

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/serve"
)

// runCLIb runs mcpctl in-process with empty stdin and returns the exit code,
// stdout and stderr.
func runCLIb(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// TestIssue10Item14StatusAtMCPPort: `mcpctl status --admin` given the MCP
// (--http) address said "usage: 127.0.0.1:8931/status answered 405…". It
// now says which listener it reached and what to give instead.
func TestIssue10Item14StatusAtMCPPort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	if err := os.WriteFile(path, []byte("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	mcpListener := httptest.NewServer(srv.HTTPMux(serve.HTTPOptions{Stateless: true}))
	defer mcpListener.Close()
	addr := strings.TrimPrefix(mcpListener.URL, "http://")

	code, _, stderr := runCLIb(t, "status", "--admin", addr)
	if code != ExitInput || strings.Contains(stderr, "usage:") || !strings.Contains(stderr, "MCP endpoint (serve --http), not the admin listener;") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the MCP listener, without \"usage:\"", code, stderr)
	}
}
