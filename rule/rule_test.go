package rule_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/rule"
)

// TestRuleModelSorted: the catalog lists diff rules before lint rules,
// each kind by id, and the result does not share Tags with its input.
func TestRuleModelSorted(t *testing.T) {
	t.Parallel()
	lint := []rule.Rule{{ID: "name-invalid", Kind: rule.Lint}, {ID: "a-lint", Kind: rule.Lint}}
	diff := []rule.Rule{{ID: "tool-added", Kind: rule.Diff, Tags: []string{"existence"}}, {ID: "input-x", Kind: rule.Diff}}
	got := rule.Sorted(lint, diff)
	var ids []rule.ID
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	want := []rule.ID{"input-x", "tool-added", "a-lint", "name-invalid"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	got[1].Tags[0] = "changed"
	if diff[0].Tags[0] != "existence" {
		t.Error("Sorted shares Tags with its input")
	}
}

func ExampleSorted() {
	all := rule.Sorted(
		[]rule.Rule{{ID: "name-invalid", Kind: rule.Lint, Level: "error"}},
		[]rule.Rule{{ID: "tool-removed", Kind: rule.Diff, Level: "breaking", Direction: "tool"}},
	)
	for _, r := range all {
		fmt.Println(r.Kind, r.ID, r.Level)
	}
	// Output:
	// diff tool-removed breaking
	// lint name-invalid error
}
