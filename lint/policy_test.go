package lint

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestIssue10Item11LintPolicy: lint findings could not be turned off or
// ignored. Levels change a rule's severity or drop it; ignores mark
// findings by rule, tool ("*" for all), JSON Pointer prefix and expiry.
func TestIssue10Item11LintPolicy(t *testing.T) {
	t.Parallel()
	set := decodeTools(t, `[
		{"name":"a","inputSchema":{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"},"outputSchema":{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}},
		{"name":"b.c","inputSchema":{"type":"object","$schema":"http://json-schema.org/draft-07/schema#"}}]`)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	render := func(fs []Finding) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = fmt.Sprintf("%s %s %s %s ignored=%v", f.Severity, f.Rule, f.Tool, f.Pointer, f.Ignored)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"off", Options{Levels: map[string]string{RuleSchemaDraft: LevelOff}}, []string{
			"warning name-dot-or-slash b.c /name ignored=false"}},
		{"error", Options{Levels: map[string]string{RuleNameDotOrSlash: "error"}, Ignores: []Ignore{{Rule: RuleSchemaDraft, Tool: "*", Reason: "r"}}}, []string{
			"warning schema-draft a /inputSchema/$schema ignored=true",
			"warning schema-draft a /outputSchema/$schema ignored=true",
			"warning schema-draft b.c /inputSchema/$schema ignored=true",
			"error name-dot-or-slash b.c /name ignored=false"}},
		{"tool and path", Options{Ignores: []Ignore{{Rule: RuleSchemaDraft, Tool: "a", Path: "/outputSchema", Reason: "r"}, {Rule: RuleNameDotOrSlash, Tool: "b.c", Reason: "r", Expires: now}}}, []string{
			"warning schema-draft a /inputSchema/$schema ignored=false",
			"warning schema-draft a /outputSchema/$schema ignored=true",
			"warning schema-draft b.c /inputSchema/$schema ignored=false",
			"warning name-dot-or-slash b.c /name ignored=false"}},
	} {
		tc.opts.Now = now
		if d := cmp.Diff(tc.want, render(Check(set, tc.opts))); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.name, d)
		}
	}
}
