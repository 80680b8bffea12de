package diff

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/facade"
)

// TestIssue12FacadeRuleRemoved: issue 12 item "facades are part of the
// contract" – dropping the rename perPage → per_page from a tool's facade,
// with the tools unchanged, used to be reported as no change at all; it
// is facade-rename-removed, breaking, with the old call {"perPage": 1} as
// witness. Kept facades report nothing, and the forward direction does
// not report a backward-only concern.
func TestIssue12FacadeRuleRemoved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "rules", "facade-rename-removed")
	old, new := loadSet(t, filepath.Join(dir, "old.json")), loadSet(t, filepath.Join(dir, "new.json"))
	kept := facade.File{"search": {Defaults: map[string]any{"q": "*"}, Rename: map[string]string{"perPage": "per_page"}}}
	dropped := facade.File{"search": {Defaults: map[string]any{"q": "*"}}}

	r := Compare(old, new, Options{Now: fixtureNow, OldFacades: kept, Facades: dropped})
	if len(r.Changes) != 1 || r.Changes[0].Rule != string(ruleFacadeRenameRemoved.ID) || r.Level != Breaking {
		t.Fatalf("facade rename dropped: level %s, findings %+v; want one facade-rename-removed, breaking", r.Level, r.Changes)
	}
	if got := string(r.Changes[0].Witness); got != `{"perPage":1}` {
		t.Errorf("witness %s, want the old call {\"perPage\":1}", got)
	}
	if r := Compare(old, new, Options{Now: fixtureNow, OldFacades: kept, Facades: kept}); len(r.Changes) != 0 {
		t.Errorf("facades kept: findings %+v, want none", r.Changes)
	}
	r = Compare(old, new, Options{Now: fixtureNow, OldFacades: kept, Facades: dropped, Compatibility: Forward})
	if len(r.Changes) != 0 {
		t.Errorf("forward: findings %+v, want none (a facade removal is a backward finding)", r.Changes)
	}
}

// TestIssue12SunsetUsage: issue 12 item "usage-aware sunsets" – a facade
// rule's removal, or a tool's removal after its sunset, is safe with a
// notice only when Options.Usage shows no call within the quiet period
// over a count that covers it; otherwise breaking, saying how many calls
// and when the last was. (Before: a tool removed after its sunset was
// safe even while calls still used it.)
func TestIssue12SunsetUsage(t *testing.T) {
	t.Parallel()
	last := fixtureNow.Add(-time.Hour)
	cases := []struct {
		name  string
		dir   string
		opts  Options
		usage Usage
		want  Level
		says  string
	}{
		{"facade rule used", "facade-rename-removed", facadeDropped(), Usage{Calls: 3, Last: last, Covered: true}, Breaking, "3 calls"},
		{"facade rule quiet", "facade-rename-removed", facadeDropped(), Usage{Covered: true}, Safe, ""},
		{"facade rule, count too short", "facade-rename-removed", facadeDropped(), Usage{}, Breaking, "less than the quiet period"},
		{"tool after sunset used", "tool-removed-after-sunset", Options{}, Usage{Calls: 2, Last: last, Covered: true}, Breaking, "2 calls"},
		{"tool after sunset quiet", "tool-removed-after-sunset", Options{}, Usage{Covered: true}, Safe, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "rules", tc.dir)
			old, new := loadSet(t, filepath.Join(dir, "old.json")), loadSet(t, filepath.Join(dir, "new.json"))
			opts := tc.opts
			opts.Now = fixtureNow
			var asked []string
			opts.Usage = func(tool, kind string) Usage { asked = append(asked, tool+"/"+kind); return tc.usage }
			r := Compare(old, new, opts)
			if len(r.Changes) != 1 || r.Changes[0].Rule != tc.dir {
				t.Fatalf("findings %+v, want one %s", r.Changes, tc.dir)
			}
			ch := r.Changes[0]
			if ch.Level != tc.want || !strings.Contains(ch.Message, tc.says) || (tc.want == Safe) != (ch.Notice != nil) {
				t.Errorf("usage %+v: level %s, message %q, notice %v; want %s saying %q, a notice when safe", tc.usage, ch.Level, ch.Message, ch.Notice, tc.want, tc.says)
			}
			if len(asked) != 1 {
				t.Errorf("usage asked for %v, want one question", asked)
			}
		})
	}
}

func facadeDropped() Options {
	return Options{
		OldFacades: facade.File{"search": {Defaults: map[string]any{"q": "*"}, Rename: map[string]string{"perPage": "per_page"}}},
		Facades:    facade.File{"search": {Defaults: map[string]any{"q": "*"}}},
	}
}

// TestIssue12SunsetUsagePerRule (reproduction: usage was asked per facade
// step kind, so dropping the rename page → p was judged by the calls of
// every rename of the tool: perPage's traffic kept an unused rule alive).
// Each removed facade rule is asked by its own key (facade.RuleKey): the
// rename of perPage, the alias search_v1, the value map entry mode: low.
func TestIssue12SunsetUsagePerRule(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "rules", "facade-rename-removed")
	old, new := loadSet(t, filepath.Join(dir, "old.json")), loadSet(t, filepath.Join(dir, "new.json"))
	opts := facadeDropped()
	opts.Now = fixtureNow
	var asked []string
	opts.Usage = func(tool, rule string) Usage { asked = append(asked, tool+" "+rule); return Usage{Covered: true} }
	Compare(old, new, opts)
	if want := []string{"search " + facade.RuleKey(facade.MemberRename, "perPage")}; !slices.Equal(asked, want) {
		t.Errorf("usage asked for %q, want %q", asked, want)
	}
	if got := facade.RuleKey(facade.MemberValues, "/filter/mode", "low"); got != "/values/~1filter~1mode/low" {
		t.Errorf("RuleKey of a value map entry: %q", got)
	}
}
