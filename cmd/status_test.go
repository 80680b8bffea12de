package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serve"
)

func TestStatusCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n  - name: b\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n")
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// A refused candidate: b removed.
	write("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n")
	if res := srv.Reload(context.Background(), "test"); res.Result != serve.ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}
	admin := httptest.NewServer(srv.AdminHandler(serve.AdminOptions{}))
	defer admin.Close()
	addr := strings.TrimPrefix(admin.URL, "http://")

	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"status", "--admin", addr}, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		"serving " + path,
		"generation 1  fingerprint " + srv.Live().Fingerprint,
		"tools (2): a, b",
		"last reload: refused (test)",
		`- breaking tool-removed tool "b" [needs permission]`,
		"refused candidates (1, newest first):",
		"sessions: 0 (0 initialized)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("status output lacks %q:\n%s", want, text)
		}
	}

	out.Reset()
	code = run(context.Background(), []string{"status", "--admin", addr, "--format", "json"}, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	var st serve.Status
	if code != ExitOK || json.Unmarshal(out.Bytes(), &st) != nil || st.Version != 1 || len(st.Refused) != 1 {
		t.Errorf("--format json: exit %d, %s", code, out.String())
	}
}

func TestHardening7StatusAdminToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	if err := os.WriteFile(path, []byte("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "admin-token")
	if err := os.WriteFile(tokenFile, []byte("adm\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	admin := httptest.NewServer(srv.AdminHandler(serve.AdminOptions{Token: "adm"}))
	defer admin.Close()
	addr := strings.TrimPrefix(admin.URL, "http://")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"status", "--admin", addr}, ExitInput},
		{[]string{"status", "--admin", addr, "--admin-token-file", tokenFile}, ExitOK},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), tc.args, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != tc.want {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.want, errOut.String())
		}
	}
}

// TestStatusJSONFollowsSchema: what `mcpctl status --format json` prints
// for a real server with a refused candidate (findings from the gate)
// follows docs/schema/status-output.schema.json, byte for byte the
// server's /status.
func TestStatusJSONFollowsSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools:\n  - name: a\n    inputSchema: {type: object, properties: {q: {type: string, enum: [x, y]}}}\n    handler: {static: {text: x}}\n  - name: b\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n")
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	write("tools:\n  - name: a\n    inputSchema: {type: object, properties: {q: {type: string, enum: [x]}}}\n    handler: {static: {text: x}}\n")
	if res := srv.Reload(context.Background(), "test"); res.Result != serve.ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}
	hs := httptest.NewServer(srv.AdminHandler(serve.AdminOptions{}))
	defer hs.Close()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"status", "--admin", strings.TrimPrefix(hs.URL, "http://"), "--format", "json"}, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	raw, err := os.ReadFile(filepath.Join("..", "docs", "schema", "status-output.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sv, err := canon.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.Compile(&sv)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Validate(schema.Instance(&v)); err != nil {
		t.Errorf("status --format json does not follow status-output.schema.json: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `"needsPermission": true`) {
		t.Errorf("the refused candidate's findings are missing:\n%s", out.String())
	}
}
