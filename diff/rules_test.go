package diff

import (
	"encoding/json"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every schema rule has a fixture folder testdata/rules/<rule-id>/ with
// old.json and new.json (tool sets), want.json (the findings at facade level
// or above, plus the rule's own finding) and optionally options.json.

type wantFinding struct {
	Rule      string `json:"rule"`
	Level     string `json:"level"`
	Direction string `json:"direction"`
	Tool      string `json:"tool"`
	Path      string `json:"path"`
}

// fixtureOptions is the optional options.json of a rule fixture.
type fixtureOptions struct {
	Now               time.Time `json:"now"`
	Verify            int       `json:"verify"`
	StrictOpenContent bool      `json:"strictOpenContent"`
	DisableRules      []string  `json:"disableRules"`
	// OldFacades and Facades are the two sides' facades (tool → block).
	OldFacades facade.File `json:"oldFacades"`
	Facades    facade.File `json:"facades"`
}

func readFixtureJSON(t *testing.T, path string, v any) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return true
}

// TestRuleFixtures runs every folder of testdata/rules through Compare.
// want.json lists findings that must be present (rule, level, direction,
// tool, path); no other finding above safe may appear; the folder's own
// rule must be among them; every witness must hold. When want.json holds
// whole findings (with "message"), the findings must equal it exactly, and
// go test -update rewrites it.
func TestRuleFixtures(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir(filepath.Join("testdata", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no rule fixtures")
	}
	for _, d := range dirs {
		name := d.Name()
		if !d.IsDir() {
			t.Errorf("testdata/rules/%s: not a folder", name)
			continue
		}
		for _, dir := range fixtureCases(t, name) {
			t.Run(strings.TrimPrefix(filepath.ToSlash(dir), "testdata/rules/"), func(t *testing.T) {
				runRuleFixture(t, name, dir)
			})
		}
	}
}

// fixtureCases lists the fixture folders of rule name: testdata/rules/<name>
// itself and each folder below it (further cases of the same rule, named
// after what they reproduce).
func fixtureCases(t *testing.T, name string) []string {
	t.Helper()
	dir := filepath.Join("testdata", "rules", name)
	out := []string{dir}
	subs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		if s.IsDir() {
			out = append(out, filepath.Join(dir, s.Name()))
		}
	}
	return out
}

// runRuleFixture runs one fixture folder of rule name.
func runRuleFixture(t *testing.T, name, dir string) {
	if _, ok := RuleByID(name); !ok {
		t.Fatalf("fixture folder %q names no rule of the catalog", name)
	}
	oldData, err := os.ReadFile(filepath.Join(dir, "old.json"))
	if err != nil {
		t.Fatal(err)
	}
	newData, err := os.ReadFile(filepath.Join(dir, "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	old, new := decodeToolSet(t, "old.json", oldData), decodeToolSet(t, "new.json", newData)
	var want []wantFinding
	if !readFixtureJSON(t, filepath.Join(dir, "want.json"), &want) {
		t.Fatal("no want.json")
	}
	var fo fixtureOptions
	readFixtureJSON(t, filepath.Join(dir, "options.json"), &fo)
	opts := Options{Now: fixtureNow, Verify: fo.Verify, StrictOpenContent: fo.StrictOpenContent, OldFacades: fo.OldFacades, Facades: fo.Facades}
	if !fo.Now.IsZero() {
		opts.Now = fo.Now
	}
	r := compareDisabling(old, new, opts, fo.DisableRules...)
	checkExactFixture(t, filepath.Join(dir, "want.json"), r)
	got := make([]wantFinding, len(r.Changes))
	for i, c := range r.Changes {
		got[i] = wantFinding{Rule: c.Rule, Level: c.Level.String(), Direction: string(c.Direction), Tool: c.Tool, Path: c.Path}
	}
	own := false
	for _, w := range want {
		own = own || w.Rule == name
		if !slices.Contains(got, w) {
			t.Errorf("missing %+v%s", w, changeSummary(r))
		}
	}
	if !own {
		t.Errorf("want.json does not list a finding of rule %s", name)
	}
	for _, c := range r.Changes {
		if c.Rule == name && c.Level >= Facade && isSchemaRule(name) && !hasWitnessJSON(c) && !witnessOrReason(c) {
			t.Errorf("%s finding without witness: %s", name, c.NoWitness)
		}
	}
	for _, g := range got {
		if g.Level != "safe" && !slices.Contains(want, g) {
			t.Errorf("unexpected %+v%s", g, changeSummary(r))
		}
	}
	checkWitnesses(t, old, new, r)
}

// TestSchemaRuleCatalog adds to TestCatalog what holds for schema rules:
// the id names the direction, no fixture folder is orphaned, and the
// open-content rule documents its flag.
func TestSchemaRuleCatalog(t *testing.T) {
	t.Parallel()
	for _, r := range schemaRules() {
		if strings.HasPrefix(string(r.ID), "output-") != (r.Direction == Output) {
			t.Errorf("%s: direction %s does not match the id", r.ID, r.Direction)
		}
		if r.ID == "input-property-added" && !strings.Contains(r.Purpose, "StrictOpenContent") {
			t.Errorf("%s: the purpose must say how StrictOpenContent changes it", r.ID)
		}
	}
	dirs, err := os.ReadDir(filepath.Join("testdata", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := RuleByID(d.Name()); !ok {
			t.Errorf("fixture %s names no rule", d.Name())
		}
	}
}

// checkExactFixture compares the findings with want.json when it holds
// whole findings; go test -update rewrites such a file.
func checkExactFixture(t *testing.T, wantPath string, r *Report) {
	t.Helper()
	raw, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	var probe []map[string]any
	if err := json.Unmarshal(raw, &probe); err != nil || len(probe) == 0 {
		return
	}
	if _, full := probe[0]["message"]; !full {
		return
	}
	got, err := json.MarshalIndent(r.Changes, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(wantPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		raw = got
	}
	if d := cmp.Diff(decodeJSON(t, raw), decodeJSON(t, got)); d != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", d)
	}
}

// isSchemaRule reports whether id is a schema rule: its breaking and facade
// findings must carry a witness (tool-level findings have none to give).
func isSchemaRule(id string) bool {
	return slices.ContainsFunc(schemaRules(), func(r Rule) bool { return string(r.ID) == id })
}
