package diff

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/rule"
	"github.com/mcpctl/mcpctl/toolset"
)

var update = flag.Bool("update", false, "rewrite golden files (want.json of rule fixtures)")

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// oneSentence: ends with a full stop and has no other sentence end (". X").
var sentenceBreak = regexp.MustCompile(`[.!?]\s+[A-Z]`)

func TestCatalog(t *testing.T) {
	t.Parallel()
	rules := Rules()
	if len(rules) == 0 {
		t.Fatal("empty catalog")
	}
	seen := map[string]bool{}
	for i, r := range rules {
		if seen[string(r.ID)] {
			t.Errorf("rule %q declared twice", r.ID)
		}
		seen[string(r.ID)] = true
		if i > 0 && rules[i-1].ID >= r.ID {
			t.Errorf("rules not sorted by id: %q before %q", rules[i-1].ID, r.ID)
		}
		if !kebab.MatchString(string(r.ID)) {
			t.Errorf("rule %q: id is not kebab-case", r.ID)
		}
		p := strings.TrimSpace(r.Purpose)
		if p == "" || !strings.HasSuffix(p, ".") || sentenceBreak.MatchString(p) {
			t.Errorf("rule %q: purpose %q is not one sentence", r.ID, r.Purpose)
		}
		if l := levelOf(r); r.Kind != rule.Diff || l < Safe || l > Breaking || l.String() != string(r.Level) {
			t.Errorf("rule %q: level %v", r.ID, r.Level)
		}
		if !slices.Contains([]Direction{Input, Output, ToolD}, r.Direction) {
			t.Errorf("rule %q: direction %q", r.ID, r.Direction)
		}
		if len(r.Tags) == 0 {
			t.Errorf("rule %q: no tags", r.ID)
		}
		for _, tag := range r.Tags {
			if !slices.Contains(Tags, tag) {
				t.Errorf("rule %q: unknown tag %q (want one of %v)", r.ID, tag, Tags)
			}
		}
		got, ok := RuleByID(string(r.ID))
		if !ok || !cmp.Equal(got, r) {
			t.Errorf("RuleByID(%q) = %v, %v", r.ID, got, ok)
		}
		if _, err := os.Stat(filepath.Join("testdata", "rules", string(r.ID), "new.json")); err != nil {
			t.Errorf("rule %q has no fixture folder testdata/rules/%s/ (old.json, new.json, want.json)", r.ID, r.ID)
		}
	}
	if _, ok := RuleByID("no-such-rule"); ok {
		t.Error("RuleByID found an unknown rule")
	}
	// Rules returns copies.
	rules[0].Tags[0] = "mutated"
	if Rules()[0].Tags[0] == "mutated" {
		t.Error("Rules shares its Tags with the catalog")
	}
}

// fixtureNow is the time every rule fixture is judged at (lifecycle
// sunsets, ignore expiries), unless its options.json says otherwise.
var fixtureNow = time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)

func loadSet(t *testing.T, path string) *toolset.Set {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := toolset.Decode(filepath.ToSlash(path), b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}
