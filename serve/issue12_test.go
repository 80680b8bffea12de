package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/state"
)

// Issue 12: a gate that holds across restarts. v1 serves search(q
// required); v2 renames the required property q to query (breaking).
const (
	i12v1 = `tools:
  - name: search
    inputSchema: {type: object, properties: {q: {type: string}}, required: [q]}
    handler: {static: {text: ok}}
`
	i12v2 = `tools:
  - name: search
    inputSchema: {type: object, properties: {query: {type: string}}, required: [query]}
    handler: {static: {text: ok}}
`
)

func i12Clock() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// i12State opens the state at dir, closed at cleanup.
func i12State(t *testing.T, dir string) *state.State {
	t.Helper()
	st, err := state.Open(dir, state.Options{History: 8, Now: i12Clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// i12New starts a server on cfg with st (nil: none).
func i12New(t *testing.T, cfg string, st *state.State) (*Server, error) {
	t.Helper()
	s, err := New(context.Background(), Options{ConfigPath: cfg, State: st, Clock: clocktest.New(i12Clock())})
	if err == nil {
		t.Cleanup(s.Close)
	}
	return s, err
}

func journalKinds(t *testing.T, st *state.State) []string {
	t.Helper()
	es, err := st.Journal()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

func TestIssue12GateKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "sub/cfg.yaml", i12v1+`gate:
  baseline: tools.lock.json
  compatibility: full
  transitive: 3
  quietPeriod: 2d
`)
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	g := cfg.Gate
	if g.Baseline != filepath.Join(dir, "sub", "tools.lock.json") || g.Compatibility != diff.Full || g.Transitive != 3 || g.EffectiveQuietPeriod() != 48*time.Hour {
		t.Errorf("gate = %+v", g)
	}
	if d := (serveconfig.GateConfig{}).EffectiveQuietPeriod(); d != serveconfig.DefaultQuietPeriod {
		t.Errorf("default quietPeriod = %v", d)
	}
	for _, bad := range []string{"compatibility: sideways", "transitive: 0", "quietPeriod: -1h", `baseline: ""`} {
		p := writeFile(t, dir, "bad.yaml", i12v1+"gate: {"+bad+"}\n")
		var ie interface{ Error() string }
		if _, err := serveconfig.LoadConfig(p); err == nil || !errors.As(err, &ie) {
			t.Errorf("%s: err = %v, want a located error", bad, err)
		}
	}
}

// TestIssue12RestartCannotBypassTheGate is the issue's reproduction: a
// refused config used to be published as generation 1 on restart. Now it
// is gated against the state: refused, the last accepted bundle is served
// and the new config is pending.
func TestIssue12RestartCannotBypassTheGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", i12v1)
	stDir := filepath.Join(t.TempDir(), "st")
	st := i12State(t, stDir)
	s1, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	v1 := s1.Live().Fingerprint
	writeFile(t, dir, "cfg.yaml", i12v2)
	if res := s1.Reload(context.Background(), "test"); res.Result != ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}
	s1.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st2 := i12State(t, stDir)
	s2, err := i12New(t, cfg, st2)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	if got := s2.Live().Fingerprint; got != v1 {
		t.Errorf("restart serves %s, want the last accepted %s", got, v1)
	}
	pend := st2.PendingList()
	if len(pend) != 1 || len(pend[0].Findings) == 0 {
		t.Fatalf("pending = %+v, want the refused config", pend)
	}
	want := []string{"published", "refused", "pending"} // the restart met the same candidate: one decision
	if got := journalKinds(t, st2); !slices.Equal(got, want) {
		t.Errorf("journal = %v, want %v", got, want)
	}
}

// writeLock writes the contract of the config at cfg as a lockfile.
func writeLock(t testing.TB, cfg, path string) {
	t.Helper()
	c, err := serveconfig.LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := c.Set()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, set, c.Facades()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIssue12BaselineOnlyRefusesAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeLock(t, writeFile(t, dir, "old.yaml", i12v1), filepath.Join(dir, "tools.lock.json"))
	cfg := writeFile(t, dir, "cfg.yaml", i12v2+"gate: {baseline: tools.lock.json}\n")
	for _, withState := range []bool{false, true} {
		var st *state.State
		if withState {
			st = i12State(t, filepath.Join(t.TempDir(), "st"))
		}
		_, err := i12New(t, cfg, st)
		if !errors.Is(err, ErrRefusedAtStart) {
			t.Fatalf("state %v: err = %v, want ErrRefusedAtStart", withState, err)
		}
		if withState && len(st.PendingList()) != 1 {
			t.Errorf("pending = %+v", st.PendingList())
		}
	}
	// A safe config passes the baseline; --allow-breaking lets v2 through.
	ok := writeFile(t, dir, "ok.yaml", i12v1+"gate: {baseline: tools.lock.json}\n")
	if _, err := i12New(t, ok, nil); err != nil {
		t.Errorf("safe against the baseline: %v", err)
	}
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := New(context.Background(), Options{ConfigPath: cfg, AllowBreaking: true, State: st, Clock: clocktest.New(i12Clock())})
	if err != nil {
		t.Fatalf("--allow-breaking: %v", err)
	}
	s.Close()
	if k := st.Last().Allowed.Kind; k != state.AllowBreaking {
		t.Errorf("allowed by %s, want %s", k, state.AllowBreaking)
	}
}

func TestIssue12StateRecordsPublishes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "inc/search.yaml", "{type: object, properties: {q: {type: string}}}\n")
	cfg := writeFile(t, dir, "cfg.yaml", `tools:
  - name: search
    inputSchema: {$file: inc/search.yaml}
    facade: {rename: {query: q}}
    handler: {static: {text: ok}}
`)
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	last := st.Last()
	if last == nil || last.Fingerprint != s.Live().Fingerprint || last.Allowed.Kind != state.First || last.Generation != 1 {
		t.Fatalf("last = %+v", last)
	}
	if last.Contract.Facades["search"].Rename == nil {
		t.Errorf("the contract lost the facade: %+v", last.Contract.Facades)
	}
	bundle, ok := st.LastBundle()
	if !ok {
		t.Fatal("no bundle")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bundle), "inc", "search.yaml")); err != nil {
		t.Errorf("the bundle lacks the include: %v", err)
	}
	writeFile(t, dir, "inc/search.yaml", "{type: object, properties: {q: {type: string}, limit: {type: integer}}}\n")
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s %v", res.Result, res.Err())
	}
	if k := st.Last().Allowed.Kind; k != state.AutoSafe {
		t.Errorf("allowed = %s", k)
	}
}

// post sends body to the admin handler at url+path with token.
func post(t *testing.T, url, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestIssue12ApproveAndReject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", i12v1)
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.AdminHandler(AdminOptions{Token: "adm"}))
	defer hs.Close()
	writeFile(t, dir, "cfg.yaml", i12v2)
	res := s.Reload(context.Background(), "test")
	if res.Result != ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}
	fp := res.Candidate
	if p := s.Status().Pending; len(p) != 1 || p[0].Fingerprint != fp {
		t.Fatalf("status pending = %+v", p)
	}
	body := `{"fingerprint":"` + fp + `","reason":"announced in 2.0"}`
	for _, tc := range []struct {
		name, path, token, body string
		code                    int
	}{
		{"no token", "/approve", "", body, http.StatusUnauthorized},
		{"no reason", "/approve", "adm", `{"fingerprint":"` + fp + `"}`, http.StatusBadRequest},
		{"not pending", "/approve", "adm", `{"fingerprint":"` + strings.Repeat("0", 64) + `","reason":"x"}`, http.StatusNotFound},
		{"not JSON", "/reject", "adm", `fingerprint`, http.StatusBadRequest},
	} {
		if code, out := post(t, hs.URL, tc.path, tc.token, tc.body); code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.name, code, out, tc.code)
		}
	}
	// The config changed since: the approval names a fingerprint the disk
	// no longer builds.
	writeFile(t, dir, "cfg.yaml", i12v2+"  - name: other\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n")
	if code, out := post(t, hs.URL, "/approve", "adm", body); code != http.StatusConflict || !strings.Contains(out, "does not build") {
		t.Errorf("stale approval: %d %s", code, out)
	}
	writeFile(t, dir, "cfg.yaml", i12v2)
	if code, out := post(t, hs.URL, "/approve", "adm", body); code != http.StatusOK {
		t.Fatalf("approve: %d %s", code, out)
	}
	if got := s.Live().Fingerprint; got != fp {
		t.Errorf("live %s, want the approved %s", got, fp)
	}
	last := st.Last()
	if last.Allowed.Kind != state.Approval || last.Allowed.Reason != "announced in 2.0" || len(st.PendingList()) != 0 {
		t.Errorf("state: %+v pending %d", last.Allowed, len(st.PendingList()))
	}
	// A second refusal, rejected.
	writeFile(t, dir, "cfg.yaml", i12v1)
	res = s.Reload(context.Background(), "test")
	if res.Result != ResultRefused {
		t.Fatalf("reload back: %s", res.Result)
	}
	if code, out := post(t, hs.URL, "/reject", "adm", `{"fingerprint":"`+res.Candidate+`","reason":"no"}`); code != http.StatusOK {
		t.Fatalf("reject: %d %s", code, out)
	}
	want := []string{"published", "refused", "pending", "approved", "published", "refused", "pending", "rejected"}
	if got := journalKinds(t, st); !slices.Equal(got, want) {
		t.Errorf("journal = %v, want %v", got, want)
	}
}

// TestIssue12NoStateNoApprovals: without --state there is nothing pending
// to decide.
func TestIssue12NoStateNoApprovals(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, i12v1)
	if _, err := s.Approve(context.Background(), Decision{Fingerprint: strings.Repeat("a", 64), Reason: "x"}); !errors.Is(err, ErrNoState) {
		t.Errorf("err = %v", err)
	}
	if p := s.Status().Pending; p == nil || len(p) != 0 {
		t.Errorf("pending = %#v, want empty", p)
	}
}

// i12Restart closes s and st and opens both again on the same folder.
func i12Restart(t *testing.T, s *Server, st *state.State, cfg string) (*Server, *state.State) {
	t.Helper()
	s.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := i12State(t, st.Dir())
	s2, err := i12New(t, cfg, st2)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	return s2, st2
}

func i12Reload(t *testing.T, s *Server, dir, config string) ReloadResult {
	t.Helper()
	writeFile(t, dir, "cfg.yaml", config)
	return s.Reload(context.Background(), "test")
}

const (
	i12Search = "  - name: search\n    inputSchema: {type: object, properties: {q: {type: string}}}\n    handler: {static: {text: ok}}\n"
	i12Fetch  = "  - name: fetch\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n"
)

// TestIssue12RemovedToolsSurviveARestart: gatememory remembered a removed
// tool only in the process, so after a restart the name could come back
// with another schema as a new tool. The state remembers it.
func TestIssue12RemovedToolsSurviveARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", "tools:\n"+i12Search+i12Fetch)
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	allow := "gate: {allow: [{rule: tool-removed, tool: search, reason: gone}]}\n"
	if res := i12Reload(t, s, dir, "tools:\n"+i12Fetch+allow); res.Result != ResultPublished {
		t.Fatalf("remove: %s %v", res.Result, res.Err())
	}
	s, _ = i12Restart(t, s, st, cfg)
	back := strings.Replace(i12Search, "q: {type: string}", "q: {type: integer}", 1)
	res := i12Reload(t, s, dir, "tools:\n"+back+i12Fetch)
	if res.Result != ResultRefused {
		t.Fatalf("re-added with another schema after a restart: %s, want refused", res.Result)
	}
}

// TestIssue12Transitive: gate.transitive checks the candidate against
// older published contracts too: a tool removed with permission cannot
// be dropped again without it... nor can a change safe against the live
// contract break what an older one promised.
func TestIssue12Transitive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		transitive string
		want       string
	}{{"", ResultPublished}, {"gate: {transitive: 3}\n", ResultRefused}} {
		dir := t.TempDir()
		cfg := writeFile(t, dir, "cfg.yaml", "tools:\n"+i12Search+i12Fetch)
		st := i12State(t, filepath.Join(t.TempDir(), "st"))
		s, err := i12New(t, cfg, st)
		if err != nil {
			t.Fatal(err)
		}
		allow := "gate: {allow: [{rule: tool-removed, tool: search, reason: gone}]}\n"
		if res := i12Reload(t, s, dir, "tools:\n"+i12Fetch+allow); res.Result != ResultPublished {
			t.Fatalf("remove: %s %v", res.Result, res.Err())
		}
		// Safe against the live contract (fetch only), breaking against
		// the first (search removed, without permission now).
		res := i12Reload(t, s, dir, "tools:\n"+i12Fetch+"  - name: other\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n"+tc.transitive)
		if res.Result != tc.want {
			t.Errorf("%q: %s, want %s (%v)", tc.transitive, res.Result, tc.want, res.Findings)
		}
	}
}

// TestIssue12Compatibility: gate.compatibility forward refuses what a
// backward gate lets through (a new optional property an old replica
// with additionalProperties: false rejects).
func TestIssue12Compatibility(t *testing.T) {
	t.Parallel()
	closed := "tools:\n  - name: search\n    inputSchema: {type: object, properties: {q: {type: string}}, additionalProperties: false}\n    handler: {static: {text: ok}}\n"
	wider := strings.Replace(closed, "q: {type: string}}", "q: {type: string}, limit: {type: integer}}", 1)
	for mode, want := range map[string]string{"backward": ResultPublished, "forward": ResultRefused, "full": ResultRefused, "none": ResultPublished} {
		dir := t.TempDir()
		cfg := writeFile(t, dir, "cfg.yaml", closed)
		s, err := i12New(t, cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := i12Reload(t, s, dir, wider+"gate: {compatibility: "+mode+"}\n")
		if res.Result != want {
			t.Errorf("%s: %s, want %s (%v)", mode, res.Result, want, res.Findings)
		}
		if want == ResultRefused && (len(res.Findings) == 0 || res.Findings[0].Compatibility != diff.Forward) {
			t.Errorf("%s: findings %+v do not say the forward direction failed", mode, res.Findings)
		}
	}
}

// TestIssue12UsageCounters: calls are counted per tool and facade rule in
// the state, and survive a restart.
func TestIssue12UsageCounters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", "tools:\n"+strings.Replace(i12Search, "}}}", "}}, required: [q]}", 1)+"    facade: {rename: {query: q}}\n")
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, s)
	c.initialize(true)
	c.call("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"q": "x"}})
	c.call("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "x"}})
	_, st = i12Restart(t, s, st, cfg)
	if w := st.Usage("search", "", serveconfig.DefaultQuietPeriod); w.Calls != 2 {
		t.Errorf("search calls = %d, want 2", w.Calls)
	}
	if w := st.Usage("search", facade.RuleKey(facade.MemberRename, "query"), serveconfig.DefaultQuietPeriod); w.Calls != 1 {
		t.Errorf("rename calls = %d, want 1", w.Calls)
	}
}

// TestIssue12RestartKnowsDeprecations: gated against the state's contract
// at start, a removal after the sunset was refused as "never published
// its deprecation" (the notice times lived in the process). The state's
// contract now seeds them as a first generation does: its "since" date.
func TestIssue12RestartKnowsDeprecations(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := "  - name: old\n    inputSchema: {type: object}\n    deprecated: {since: 2026-01-01, sunset: 2026-02-01}\n    handler: {static: {text: ok}}\n"
	cfg := writeFile(t, dir, "cfg.yaml", "tools:\n"+i12Search+old)
	st := i12State(t, filepath.Join(t.TempDir(), "st"))
	s, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// quietPeriod 0s: the fresh state's usage counters cover it (no call),
	// as usage-aware sunsets require (TestIssue12FacadeRemovalByUsage).
	writeFile(t, dir, "cfg.yaml", "tools:\n"+i12Search+"gate: {quietPeriod: 0s}\n")
	st = i12State(t, st.Dir())
	s, err = i12New(t, cfg, st)
	if err != nil {
		t.Fatalf("restart removing a tool after its sunset: %v", err)
	}
	if len(st.PendingList()) != 0 || s.Live().Set.Lookup("old") != nil {
		t.Errorf("the removal was not published: pending %+v", st.PendingList())
	}
}
