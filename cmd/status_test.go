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

	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/upstream"
)

func TestStatusCommand(t *testing.T) {
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

func TestRenderStatusPinned(t *testing.T) {
	st := &serve.Status{Sessions: serve.SessionStatus{
		Total: 3, Initialized: 3,
		ByGeneration: map[string]int{"1": 2, "2": 1},
		Pinned:       map[string]int{"1": 2},
	}}
	text := renderStatus(st, st.PublishedAt)
	for _, want := range []string{
		"sessions: 3 (3 initialized); generation 1: 2, generation 2: 1\n",
		"  pinned: 2 (generation 1: 2)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("status output lacks %q:\n%s", want, text)
		}
	}
	st.Sessions.Pinned = nil
	if text := renderStatus(st, st.PublishedAt); strings.Contains(text, "pinned") {
		t.Errorf("status without pins mentions pinned:\n%s", text)
	}
}

func TestRenderStatusSessionCap(t *testing.T) {
	st := &serve.Status{Sessions: serve.SessionStatus{HTTPOpen: 2, Max: 10, Refused: 3, IdleTimeout: "1800s"}}
	want := "  http: 2 of at most 10 open, closed after 1800s idle; 3 refused at the cap\n"
	if text := renderStatus(st, st.PublishedAt); !strings.Contains(text, want) {
		t.Errorf("status output lacks %q:\n%s", want, text)
	}
}

// Item 7 of the hardening issue: with serve --admin-token-file, status
// sends the token from its own --admin-token-file, and is refused without.
func TestHardening7StatusAdminToken(t *testing.T) {
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

func TestRenderStatusUpstreams(t *testing.T) {
	st := &serve.Status{Upstreams: []upstream.Status{
		{Name: "files", State: serve.StateQuarantined, Tools: 14, Restarts: 0},
		{Name: "tickets", State: upstream.StateRestarting, Tools: 3, Restarts: 2, LastError: "the server closed the connection"},
	}}
	want := "\nupstreams:\n  files  quarantined  14 tools  0 restarts\n  tickets  restarting  3 tools  2 restarts  last error: the server closed the connection\n"
	if text := renderStatus(st, st.PublishedAt); !strings.Contains(text, want) {
		t.Errorf("status output lacks %q:\n%s", want, text)
	}
}

func TestRenderStatusQuarantinedReload(t *testing.T) {
	st := &serve.Status{LastReload: &serve.ReloadResult{Trigger: "upstream:files", Result: serve.ResultQuarantined, Version: 3, Fingerprint: "abcdef0123456789", Candidate: "fedcba", Quarantined: []string{"files"}}}
	want := "last reload: quarantined (upstream:files)"
	text := renderStatus(st, st.PublishedAt)
	for _, w := range []string{want, "    upstream(s) files quarantined; serving generation 3 (abcdef012345)\n", "    pending: fedcba (mcpctl approve or reject)\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("status output lacks %q:\n%s", w, text)
		}
	}
}
