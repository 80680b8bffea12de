package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/toolset"
)

// FuzzCheck: for any readable tool set, Check does not panic, returns sorted
// findings of catalog rules with their catalog severity and a JSON Pointer,
// and agrees with ValidateTool on the per-tool errors.
func FuzzCheck(f *testing.F) {
	for _, tc := range ruleCases {
		f.Add([]byte(`{"tools":` + tc.tools + `}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := toolset.Decode("fuzz", data)
		if err != nil {
			return
		}
		got := Check(set, Options{Profile: ProfileStrict})
		sorted := slices.Clone(got)
		sortFindings(sorted)
		if d := cmp.Diff(sorted, got); d != "" {
			t.Fatalf("findings not sorted (-sorted +got):\n%s", d)
		}
		var errs []Finding
		for _, g := range got {
			if g.Severity != ruleSeverity(g.Rule) {
				t.Fatalf("%s: severity %s", g.Rule, g.Severity)
			}
			if g.Pointer != "" && !strings.HasPrefix(g.Pointer, "/") || g.Message == "" {
				t.Fatalf("bad finding %s", g)
			}
			if g.Severity == SeverityError && g.Rule != RuleNameDuplicate {
				errs = append(errs, g)
			}
		}
		var fromTools []Finding
		for _, tool := range set.Tools {
			fromTools = append(fromTools, ValidateTool(tool)...)
		}
		if d := cmp.Diff(errs, fromTools); d != "" {
			t.Fatalf("ValidateTool and Check disagree (-check +validate):\n%s", d)
		}
	})
}
