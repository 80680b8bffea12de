package diff

import "github.com/mcpctl/mcpctl/toolset"

// compareDisabling is Compare with the findings of the named schema rules
// dropped, as if the rules were missing: fixtures use it to show that
// --verify catches what a missing rule would let through.
func compareDisabling(old, new *toolset.Set, opts Options, ids ...string) *Report {
	var disabled map[string]bool
	for _, id := range ids {
		if disabled == nil {
			disabled = map[string]bool{}
		}
		disabled[id] = true
	}
	return compareWith(old, new, opts, disabled)
}
