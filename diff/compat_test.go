package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/lockfile"
)

// compatFinding is what a compatibility fixture pins of each finding.
type compatFinding struct {
	Rule          string        `json:"rule"`
	Level         Level         `json:"level"`
	Compatibility Compatibility `json:"compatibility,omitempty"`
	Covered       bool          `json:"covered,omitempty"`
	Ignored       bool          `json:"ignored,omitempty"`
}

type compatWant struct {
	Gate     Level           `json:"gate"`
	Findings []compatFinding `json:"findings"`
}

func readLock(t *testing.T, path string) *lockfile.Lock {
	t.Helper()
	lock, err := lockfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return lock
}

// TestCompatibilityModes runs every testdata/compat/<case>/ (old.json and
// new.json, contract lockfiles whose facades are declared on their side)
// in each mode and compares the findings and the gate level with
// want.json. optional-property-closed is backward-safe but
// forward-breaking: a call built from NEW with the new optional property
// is rejected by OLD's closed schema.
func TestCompatibilityModes(t *testing.T) {
	t.Parallel()
	dirs, _ := filepath.Glob(filepath.Join("testdata", "compat", "*"))
	if len(dirs) < 3 {
		t.Fatalf("found %d compatibility fixtures", len(dirs))
	}
	for _, dir := range dirs {
		old, new := readLock(t, filepath.Join(dir, "old.json")), readLock(t, filepath.Join(dir, "new.json"))
		data, err := os.ReadFile(filepath.Join(dir, "want.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want map[Compatibility]compatWant
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, mode := range Compatibilities() {
			t.Run(filepath.Base(dir)+"/"+mode, func(t *testing.T) {
				w, ok := want[Compatibility(mode)]
				if !ok {
					t.Fatalf("want.json has no %q", mode)
				}
				r := Compare(old.Set, new.Set, Options{Now: day("2026-01-01"), Compatibility: Compatibility(mode),
					Facades: new.Facades, OldFacades: old.Facades})
				got := compatWant{Gate: r.GateLevel(), Findings: []compatFinding{}}
				for _, c := range r.Changes {
					got.Findings = append(got.Findings, compatFinding{c.Rule, c.Level, c.Compatibility, c.Covered, c.Ignored})
				}
				if d := cmp.Diff(w, got); d != "" {
					t.Errorf("mismatch (-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestCompatibilityForwardUsesOldFacades: the forward direction is
// carried by OLD's facades, not NEW's.
func TestCompatibilityForwardUsesOldFacades(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "compat", "rename-facades")
	old, new := readLock(t, filepath.Join(dir, "old.json")), readLock(t, filepath.Join(dir, "new.json"))
	r := Compare(old.Set, new.Set, Options{Now: day("2026-01-01"), Compatibility: Forward, Facades: new.Facades})
	if got := r.GateLevel(); got != Facade {
		t.Errorf("forward without OLD's facades: gate %v, want facade", got)
	}
}

// TestCompatibilityJSON: the report's JSON names the failing direction of
// each finding under full, keeps OLD and NEW as given, and has no
// compatibility member in the default (backward) mode.
func TestCompatibilityJSON(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "compat", "optional-property-closed")
	old, new := readLock(t, filepath.Join(dir, "old.json")), readLock(t, filepath.Join(dir, "new.json"))
	type side struct {
		Source string `json:"source"`
	}
	type finding struct {
		Rule          string  `json:"rule"`
		Compatibility *string `json:"compatibility"`
	}
	type report struct {
		Old, New side
		Changes  []finding
	}
	decode := func(mode Compatibility) report {
		data, err := json.Marshal(Compare(old.Set, new.Set, Options{Now: day("2026-01-01"), Compatibility: mode}))
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	fw, bw := "forward", "backward"
	want := report{Old: side{old.Set.Source}, New: side{new.Set.Source},
		Changes: []finding{{"input-property-removed", &fw}, {"input-property-added", &bw}}}
	if d := cmp.Diff(want, decode(Full)); d != "" {
		t.Errorf("full: mismatch (-want +got):\n%s", d)
	}
	want.Changes = []finding{{"input-property-added", nil}}
	if d := cmp.Diff(want, decode(Backward)); d != "" {
		t.Errorf("backward: mismatch (-want +got):\n%s", d)
	}
}

func TestCompatibilityParse(t *testing.T) {
	t.Parallel()
	for _, s := range append(Compatibilities(), "") {
		if _, err := ParseCompatibility(s); err != nil {
			t.Errorf("ParseCompatibility(%q): %v", s, err)
		}
	}
	if _, err := ParseCompatibility("both"); err == nil {
		t.Error(`ParseCompatibility("both") accepted`)
	}
	if err := (Options{Compatibility: "both"}).Check(); err == nil {
		t.Error(`Options.Check accepted compatibility "both"`)
	}
	if err := (Options{Compatibility: Forward}).Check(); err != nil {
		t.Errorf("Options.Check(forward): %v", err)
	}
}
