package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/diff"
)

// usageReport has two breaking findings weighted by recorded calls (diff
// --usage): one that two calls touch and one that none does.
func usageReport() *diff.Report {
	return &diff.Report{
		Level:  diff.Breaking,
		Counts: map[string]int{"safe": 0, "facade": 0, "breaking": 2},
		Old:    diff.Side{Source: "old.json"},
		New:    diff.Side{Source: "new.json"},
		Changes: []diff.Change{
			{Rule: "input-enum-value-removed", Level: diff.Breaking, Direction: diff.Input, Tool: "search", Path: "/properties/mode/enum", Message: "enum value auto removed", Calls: ptr(2)},
			{Rule: "input-property-removed", Level: diff.Breaking, Direction: diff.Input, Tool: "search", Path: "/properties/legacy", Message: "property legacy removed", Calls: ptr(0), Unused: true},
		},
	}
}

// TestUsageInEveryFormat: an unused finding is marked unused in every
// format, a used one says how many calls it affects.
func TestUsageInEveryFormat(t *testing.T) {
	t.Parallel()
	rep := usageReport()
	for _, format := range Formats() {
		var buf bytes.Buffer
		if err := Render(&buf, format, rep, Options{Rules: testCatalog()}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !strings.Contains(out, "unused") {
			t.Errorf("%s: the unused finding is not marked:\n%s", format, out)
		}
		if format != "json" && format != "sarif" && !strings.Contains(out, "2 recorded call(s) affected") {
			t.Errorf("%s: the used finding does not say how many calls it affects:\n%s", format, out)
		}
		if (format == "json" || format == "sarif") && !strings.Contains(out, `"calls": 2`) {
			t.Errorf("%s: no calls count:\n%s", format, out)
		}
	}
}

func TestFailOnUsedOnly(t *testing.T) {
	t.Parallel()
	rep := usageReport()
	if !Fails(rep, Options{}) {
		t.Error("breaking findings do not fail without --fail-on-used-only")
	}
	if !Fails(rep, Options{UsedOnly: true}) {
		t.Error("a used breaking finding does not fail with --fail-on-used-only")
	}
	rep.Changes = rep.Changes[1:]
	if !Fails(rep, Options{}) {
		t.Error("an unused breaking finding does not fail without --fail-on-used-only")
	}
	if Fails(rep, Options{UsedOnly: true}) {
		t.Error("an unused breaking finding fails with --fail-on-used-only")
	}
	var buf bytes.Buffer
	if err := Render(&buf, "junit", rep, Options{UsedOnly: true, Rules: testCatalog()}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<failure") {
		t.Errorf("junit: the unused finding is a failure with --fail-on-used-only:\n%s", buf.String())
	}
}
