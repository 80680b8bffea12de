package serve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/state"
)

// TestIssue12StalePendingNotOffered (reproduction: two refused edits of
// one config left both candidates pending, and /status kept offering the
// first, which the config no longer builds, for approval forever). A newer
// candidate of the config supersedes the pending ones: refused, it is the
// only one pending; published, none is. Deciding a superseded candidate
// answers 410 Gone with state.ErrSuperseded's message.
func TestIssue12StalePendingNotOffered(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", i12v1)
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.AdminHandler(AdminOptions{}))
	defer hs.Close()
	refuse := func(config string) string {
		t.Helper()
		res := i12Reload(t, s, dir, config)
		if res.Result != ResultRefused {
			t.Fatalf("reload: %s, want refused", res.Result)
		}
		return res.Candidate
	}
	first := refuse(i12v2)
	second := refuse(strings.Replace(i12v2, "query", "text", 2))
	if p := s.Status().Pending; len(p) != 1 || p[0].Fingerprint != second {
		t.Fatalf("pending %+v, want only the newer candidate %s", p, second[:8])
	}
	code, out := post(t, hs.URL, "/approve", "", `{"fingerprint":"`+first+`","reason":"x"}`)
	if code != http.StatusGone || !strings.Contains(out, "stale") {
		t.Errorf("approve of the superseded candidate: %d %s, want 410 stale", code, out)
	}
	// The config goes on to something else: published, unchanged, or not
	// building at all: the pending candidate is stale each time.
	for _, tc := range []struct{ name, config, want string }{
		{"published", i12v1 + "  - name: other\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n", ResultPublished},
		{"unchanged", i12v1 + "  - name: other\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n", ResultUnchanged},
		{"no longer builds", "tools: [}\n", ResultRefused},
	} {
		second = refuse(strings.Replace(i12v2, "query", tc.name[:2], 2))
		if res := i12Reload(t, s, dir, tc.config); res.Result != tc.want {
			t.Fatalf("%s: reload %s, want %s", tc.name, res.Result, tc.want)
		}
		if p := s.Status().Pending; len(p) != 0 {
			t.Errorf("%s: pending %+v, want none", tc.name, p)
		}
		if _, err := s.Approve(context.Background(), Decision{Fingerprint: second, Reason: "x"}); !errors.Is(err, state.ErrSuperseded) {
			t.Errorf("%s: approve of the stale candidate: %v, want state.ErrSuperseded (410)", tc.name, err)
		}
	}
}
