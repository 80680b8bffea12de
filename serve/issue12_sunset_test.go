package serve

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
)

// TestIssue12FacadeRemovalByUsage: dropping the facade rename query → q
// was published without a word while calls still used the old name. Now
// the removal is judged by the state's usage counters within
// gate.quietPeriod: refused, saying how many calls used it, while the
// rename carried a call in the period; published (safe, with a notice)
// when the state covers the period and counted none.
func TestIssue12FacadeRemovalByUsage(t *testing.T) {
	t.Parallel()
	search := "tools:\n" + strings.Replace(i12Search, "}}}", "}}, required: [q]}", 1)
	withRename := search + "    facade: {rename: {query: q}}\n"
	for _, tc := range []struct {
		name  string
		calls int
		gate  string
		want  string
	}{
		{"used in the quiet period", 1, "gate: {quietPeriod: 0s}\n", ResultRefused},
		{"not counted for the quiet period", 0, "", ResultRefused},
		{"quiet", 0, "gate: {quietPeriod: 0s}\n", ResultPublished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := writeFile(t, dir, "cfg.yaml", withRename+tc.gate)
			s, err := i12New(t, cfg, i12State(t, filepath.Join(t.TempDir(), "st")))
			if err != nil {
				t.Fatal(err)
			}
			c := dialRaw(t, s)
			c.initialize(true)
			for range tc.calls {
				c.call("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "x"}})
			}
			res := i12Reload(t, s, dir, search+tc.gate)
			if res.Result != tc.want {
				t.Fatalf("facade rename dropped: %s, want %s (%+v)", res.Result, tc.want, res.Findings)
			}
			if tc.want == ResultRefused && (len(res.Findings) == 0 || res.Findings[0].Rule != "facade-rename-removed") {
				t.Errorf("findings %+v, want facade-rename-removed", res.Findings)
			}
			if tc.calls > 0 && !strings.Contains(res.Findings[0].Message, "1 calls") {
				t.Errorf("the refusal does not say how many calls used the rule: %q", res.Findings[0].Message)
			}
		})
	}
}

// TestIssue12UsageWithoutState (reproduction: without --state, serve had
// no usage counters, so a deprecated tool removed after its sunset was
// published while a client still called it the day before, and a facade
// rule unused for the whole quiet period could never be dropped). Without
// --state the calls are counted in memory since the process started: the
// same rule as with a state, covered once the server has been up for
// gate.quietPeriod.
func TestIssue12UsageWithoutState(t *testing.T) {
	t.Parallel()
	const keep = "  - name: keep\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n"
	const echo = "  - name: echo\n    inputSchema: {type: object}\n    handler: {static: {text: ok}}\n    deprecated: {since: 2026-01-15, sunset: 2026-03-01}\n"
	for _, tc := range []struct {
		name       string
		callBefore bool // a call the day before the removal
		want       string
	}{
		{"called in the quiet period", true, ResultRefused},
		{"quiet for the period, up longer", false, ResultPublished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := clocktest.New(testNow)
			s, path := startServer(t, "tools:\n"+keep+echo, withClock(clock))
			c := dialRaw(t, s)
			c.initialize(true)
			c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
			clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
			if tc.callBefore {
				c.call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{}})
			}
			clock.Set(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
			writeFile(t, filepath.Dir(path), filepath.Base(path), "tools:\n"+keep)
			res := s.Reload(t.Context(), "test")
			if res.Result != tc.want {
				t.Fatalf("echo removed after its sunset: %s, want %s (%+v)", res.Result, tc.want, res.Findings)
			}
			if tc.callBefore && !strings.Contains(res.Findings[0].Message, "1 calls") {
				t.Errorf("the refusal does not say how many calls used it: %q", res.Findings[0].Message)
			}
		})
	}
	t.Run("facade rule unused", func(t *testing.T) {
		t.Parallel()
		search := "tools:\n" + strings.Replace(i12Search, "}}}", "}}, required: [q]}", 1)
		s, path := startServer(t, search+"    facade: {rename: {query: q}}\ngate: {quietPeriod: 0s}\n")
		writeFile(t, filepath.Dir(path), filepath.Base(path), search+"gate: {quietPeriod: 0s}\n")
		if res := s.Reload(t.Context(), "test"); res.Result != ResultPublished {
			t.Errorf("an unused facade rename dropped under quietPeriod 0s: %s (%+v)", res.Result, res.Findings)
		}
	})
}

// TestIssue12UsagePerFacadeRule (reproduction: serve counted facade use
// per step kind, so calls that used the rename query → q kept the unused
// rename body → text from ever being dropped: both were "rename"). Each
// facade rule is counted by its own key: dropping the unused rename
// passes (gate.quietPeriod 0s, with a state covering it), dropping the
// used one is refused with its count.
func TestIssue12UsagePerFacadeRule(t *testing.T) {
	t.Parallel()
	tools := "tools:\n  - name: search\n    inputSchema: {type: object, properties: {q: {type: string}, text: {type: string}}, additionalProperties: false}\n    handler: {static: {text: ok}}\n"
	both := tools + "    facade: {rename: {query: q, body: text}}\ngate: {quietPeriod: 0s}\n"
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cfg.yaml", both)
	s, err := i12New(t, cfg, i12State(t, filepath.Join(t.TempDir(), "st")))
	if err != nil {
		t.Fatal(err)
	}
	c := dialRaw(t, s)
	c.initialize(true)
	c.call("tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "x"}})
	if res := i12Reload(t, s, dir, tools+"    facade: {rename: {query: q}}\ngate: {quietPeriod: 0s}\n"); res.Result != ResultPublished {
		t.Fatalf("dropping the unused rename body: %s (%+v)", res.Result, res.Findings)
	}
	res := i12Reload(t, s, dir, tools+"gate: {quietPeriod: 0s}\n")
	if res.Result != ResultRefused || len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, "1 calls") {
		t.Errorf("dropping the used rename query: %s (%+v), want refused with 1 call", res.Result, res.Findings)
	}
}
