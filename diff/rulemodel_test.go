package diff

import (
	"slices"
	"sync"
	"testing"
)

// TestRuleModelDisabledRulesPerCompare: disabling a rule to exercise the
// verifier used to be a package global in the emit path (diff/verify.go's
// disabledRulesForTest), so one test's disabled rule leaked into every
// Compare running at the same time. It is now an argument of one
// comparison (compareWith): two comparisons of the same change, one with the rule disabled,
// run concurrently and each sees only its own setting.
func TestRuleModelDisabledRulesPerCompare(t *testing.T) {
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
