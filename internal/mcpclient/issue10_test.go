package mcpclient

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// messages collects Progress or Warn messages from concurrent callers.
type messages struct {
	mu   sync.Mutex
	list []string
}

func (m *messages) add(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.list = append(m.list, s)
}

func (m *messages) all() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.list)
}

// TestIssue10Item4NonJSONLineSkipped: a stdio server that prints
// "Server starting..." on stdout before speaking JSON-RPC failed with
// "invalid character 'S'". The line is skipped with a warning quoting it,
// and the tools are read.
func TestIssue10Item4NonJSONLineSkipped(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	source, opts := fakeSource("chatty", &stderr)
	var warns messages
	opts.Warn = warns.add
	set, err := LoadLive(t.Context(), source, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	if d := cmp.Diff([]string{"alpha", "mid", "zeta"}, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	want := []string{source + `: skipped a line on the server's standard output that is not JSON-RPC: "Server starting..."`}
	if d := cmp.Diff(want, warns.all()); d != "" {
		t.Errorf("warnings mismatch (-want +got):\n%s", d)
	}
}

// TestIssue10Item4Progress: a live fetch reports what it waits for
// (starting the server, initialize, each tools/list page), so a terminal can
// show a status line instead of minutes of silence.
func TestIssue10Item4Progress(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	source, opts := fakeSource("raw", &stderr)
	var progress messages
	opts.Progress = progress.add
	if _, err := LoadLive(t.Context(), source, opts); err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	want := []string{"starting " + strings.TrimPrefix(source, "stdio:") + " …", "waiting for initialize …", "listing tools, page 1", "listing tools, page 2"}
	if d := cmp.Diff(want, progress.all()); d != "" {
		t.Errorf("progress mismatch (-want +got):\n%s", d)
	}
}

// TestIssue10Item2Headers: http(s) sources could not send a header, so a
// server behind a bearer token was out of reach. LiveOptions.Headers go on
// every request.
func TestIssue10Item2Headers(t *testing.T) {
	t.Parallel()
	srv := newToolServer(2, 10, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Tenant"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	opts := LiveOptions{Timeout: 30 * time.Second, Headers: http.Header{"Authorization": {"Bearer s3cret"}, "X-Tenant": {"t1"}}}
	set, err := LoadLive(t.Context(), ts.URL, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	if len(set.Tools) != 2 {
		t.Errorf("got %d tools, want 2", len(set.Tools))
	}
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	for _, s := range got {
		if s != "Bearer s3cret|t1" {
			t.Errorf("a request carried %q, want the headers on every request", s)
		}
	}
	_, err = LoadLive(t.Context(), ts.URL, LiveOptions{Timeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("without the header: %v, want a 401 error", err)
	}
}

// TestIssue10Item8ClientConfigHeaders: the headers of an HTTP server in a
// client configuration (VS Code's "headers", often a bearer token from
// ${env:…}) were refused ("cannot be sent from a client config"), so such
// a server could only be reached by retyping them as --header. They are
// sent now, after the headers of LiveOptions (--header, the source token),
// which win for the same name; a value never appears in an error, even one
// a server echoes.
func TestIssue10Item8ClientConfigHeaders(t *testing.T) {
	// not parallel: sets ITEM8_TOKEN
	srv := newToolServer(2, 10, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Tenant"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer from-env" {
			http.Error(w, "refused "+r.Header.Get("Authorization")+" for "+r.Header.Get("X-Tenant"), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	t.Setenv("ITEM8_TOKEN", "from-env")
	cs := toolset.ClientServer{Name: "remote", URL: ts.URL, Headers: []string{"Authorization: Bearer ${env:ITEM8_TOKEN}", "X-Tenant: tenant-1"}}
	set, err := FetchClientServer(t.Context(), "mcp.json", cs, LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("FetchClientServer: %v", err)
	}
	if len(set.Tools) != 2 {
		t.Errorf("got %d tools, want 2", len(set.Tools))
	}
	mu.Lock()
	got := slices.Clone(seen)
	seen = nil
	mu.Unlock()
	for _, s := range got {
		if s != "Bearer from-env|tenant-1" {
			t.Errorf("a request carried %q, want the file's headers on every request", s)
		}
	}

	// A header given by the caller wins; a server that echoes the headers
	// in its error does not get them printed.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Tenant"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad credentials %s for tenant %s"}}`,
			r.Header.Get("Authorization"), r.Header.Get("X-Tenant"))
	}))
	defer echo.Close()
	cs.URL = echo.URL
	opts := LiveOptions{Timeout: 30 * time.Second, Headers: http.Header{"Authorization": {"Bearer given-token"}}}
	_, err = FetchClientServer(t.Context(), "mcp.json", cs, opts)
	if err == nil || !strings.Contains(err.Error(), "bad credentials [redacted] for tenant [redacted]") {
		t.Errorf("echoing server: %v, want the echo with both values redacted", err)
	}
	if !errors.Is(err, toolset.ErrInput) {
		t.Errorf("error %v does not wrap toolset.ErrInput", err)
	}
	for _, secret := range []string{"given-token", "tenant-1", "from-env"} {
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error shows the header value %q: %v", secret, err)
		}
	}
	mu.Lock()
	got = slices.Clone(seen)
	mu.Unlock()
	if len(got) == 0 || got[0] != "Bearer given-token|tenant-1" {
		t.Errorf("requests carried %q, want the given Authorization and the file's X-Tenant", got)
	}

	cs.Headers = []string{"Bad Name: x"}
	if _, err := FetchClientServer(t.Context(), "mcp.json", cs, opts); !errors.Is(err, toolset.ErrInput) {
		t.Errorf("a header name with a space: %v, want toolset.ErrInput", err)
	}
}
