package toolset

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
