package serve

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue12FacadeRemovalByUsage: dropping the facade rename query → q
// was published without a word while calls still used the old name. Now
// the removal is judged by the state's usage counters within
// gate.quietPeriod: refused, saying how many calls used it, while the
// rename carried a call in the period; published (safe, with a notice)
// when the state covers the period and counted none.
func TestIssue12FacadeRemovalByUsage(t *testing.T) {
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
