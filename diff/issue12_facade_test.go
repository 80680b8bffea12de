package diff

import (
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/facade"
)

// TestIssue12FacadeRuleRemoved: issue 12 item "facades are part of the
// contract" – dropping the rename perPage → per_page from a tool's facade,
// with the tools unchanged, used to be reported as no change at all; it
// is facade-rename-removed, breaking, with the old call {"perPage": 1} as
// witness. Kept facades report nothing, and the forward direction does
// not report a backward-only concern.
func TestIssue12FacadeRuleRemoved(t *testing.T) {
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
