package report

import (
	"bytes"
	"testing"

	"github.com/mcpctl/mcpctl/lint"
)

// lintFindings has a group of three (one located), a single located error
// and an ignored finding.
func lintFindings() []lint.Finding {
	draft := func(tool string, line int) lint.Finding {
		return lint.Finding{Severity: lint.SeverityWarning, Rule: "schema-draft", Tool: tool, Pointer: "/inputSchema/$schema",
			Message: `"inputSchema" declares draft-07`, File: "tools.json", Line: line, Col: 20}
	}
	return []lint.Finding{
		draft("a", 3), draft("b", 9), draft("c", 0),
		{Severity: lint.SeverityError, Rule: "ref-unresolved", Tool: "d", Pointer: "/inputSchema/properties/x/$ref",
			Message: `$ref "#/nope" does not resolve`, File: "mcpctl.serve.yaml", Line: 12, Col: 19},
		{Severity: lint.SeverityWarning, Rule: "name-dot-or-slash", Tool: "e.f", Pointer: "/name", Message: "dot", Ignored: true, IgnoreReason: "ok"},
	}
}

// TestLintTextGolden pins lint's text output, plain and styled (issue 10
// item 11: grouped, located, coloured like diff).
func TestLintTextGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		color bool
	}{{"lint.txt", false}, {"lint.styled.txt", true}} {
		var b bytes.Buffer
		if err := LintText(&b, "tools.json", 6, lintFindings(), Options{Color: tc.color}); err != nil {
			t.Fatal(err)
		}
		got := b.Bytes()
		if tc.color {
			got = visibleANSI(got)
		}
		golden(t, tc.name, got)
	}
}
