package diff

import (
	"slices"
	"sync"
	"testing"

	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/rule"
)

// TestRuleModelDisabledRulesPerCompare: disabling a rule to exercise the
// verifier used to be a package global in the emit path (diff/verify.go's
// disabledRulesForTest), so one test's disabled rule leaked into every
// Compare running at the same time. It is now an argument of one
// comparison (compareWith): two comparisons of the same change, one with the rule disabled,
// run concurrently and each sees only its own setting.
func TestRuleModelDisabledRulesPerCompare(t *testing.T) {
	t.Parallel()
	old := mustSet(t, `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"v":{"type":"integer","maximum":10}},"required":["v"]}}]}`)
	new := mustSet(t, `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"v":{"type":"integer","maximum":5}},"required":["v"]}}]}`)
	opts := Options{Now: fixtureNow, Verify: 64}
	var wg sync.WaitGroup
	rules := make([][]string, 2)
	for i, disabled := range [][]string{nil, {"input-max-lowered"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range compareDisabling(old, new, opts, disabled...).Changes {
				rules[i] = append(rules[i], c.Rule)
			}
		}()
	}
	wg.Wait()
	if !slices.Contains(rules[0], "input-max-lowered") {
		t.Errorf("without disabled rules: got %v, want input-max-lowered", rules[0])
	}
	if slices.Contains(rules[1], "input-max-lowered") || !slices.Contains(rules[1], "verify-counterexample") {
		t.Errorf("with input-max-lowered disabled: got %v, want verify-counterexample only", rules[1])
	}
}

// TestRuleModelSchemaKinds: schema findings were emitted by a string
// ("enum-value-removed") that emitAt prefixed with the direction and
// looked up, panicking at run time on a typo or a missing declaration.
// They are now emitted by kind value; this pins that every kind links to a
// declared rule for each of its directions and every schema rule to a
// kind, so the link cannot fail while comparing.
func TestRuleModelSchemaKinds(t *testing.T) {
	t.Parallel()
	loadSchemaCatalog()
	if schemaCatalogErr != nil {
		t.Fatal(schemaCatalogErr)
	}
	for _, k := range schemaKinds {
		for _, d := range k.dirs {
			r := k.def(d)
			if r == nil || string(r.ID) != string(d)+"-"+k.name || r.Direction != d {
				t.Errorf("kind %s, direction %s: rule %+v", k.name, d, r)
			}
		}
	}
}

// TestRuleModelCatalogKinds: every diff rule has kind diff and a level
// its Level parses back from; every lint rule has kind lint; the catalog
// mcpctl rules prints is diff's then lint's rules, ids unique across both.
func TestRuleModelCatalogKinds(t *testing.T) {
	t.Parallel()
	for _, r := range Rules() {
		if r.Kind != rule.Diff || levelOf(r).String() != string(r.Level) || levelOf(r) == LevelNone {
			t.Errorf("diff rule %s: kind %q, level %q", r.ID, r.Kind, r.Level)
		}
	}
	all := rule.Sorted(Rules(), lint.Rules())
	seen := map[rule.ID]bool{}
	for i, r := range all {
		if seen[r.ID] {
			t.Errorf("rule id %s is both a diff and a lint rule", r.ID)
		}
		seen[r.ID] = true
		if i > 0 && all[i-1].Kind == rule.Lint && r.Kind == rule.Diff {
			t.Errorf("diff rule %s listed after lint rule %s", r.ID, all[i-1].ID)
		}
	}
	if len(all) != len(Rules())+len(lint.Rules()) {
		t.Errorf("%d rules, want %d", len(all), len(Rules())+len(lint.Rules()))
	}
}
