package diff

import (
	"fmt"
	"testing"
)

// Reproductions of issue 9 ("verdicts you can trust"): each is one
// property "a" of an input (or output) schema, old → new, and the finding
// the report must hold. Every case also has a fixture under
// testdata/rules/<rule-id>/ that TestRuleFixtures runs.

// propCase is one reproduction: property a changes from Old to New in the
// inputSchema (or, with Output, in the outputSchema).
type propCase struct {
	name     string
	output   bool
	old, new string
	// want lists rule:level pairs that must be found; none means the
	// report must hold no finding above safe and at least one finding.
	want []string
	// not lists rules that must not be found.
	not []string
}

func propToolSet(t *testing.T, source, prop string, output bool) []byte {
	t.Helper()
	s := fmt.Sprintf(`{"type":"object","properties":{"a":%s}}`, prop)
	if output {
		return []byte(fmt.Sprintf(`{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"},"outputSchema":%s}]}`, s))
	}
	return []byte(fmt.Sprintf(`{"tools":[{"name":"t","description":"d","inputSchema":%s}]}`, s))
}

func runPropCases(t *testing.T, cases []propCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := decodeToolSet(t, "old", propToolSet(t, "old", tc.old, tc.output))
			new := decodeToolSet(t, "new", propToolSet(t, "new", tc.new, tc.output))
			r := Compare(old, new, Options{Now: fixtureNow})
			checkWitnesses(t, old, new, r)
			got := map[string]bool{}
			for _, c := range r.Changes {
				got[c.Rule+":"+c.Level.String()] = true
				got[c.Rule] = true
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("missing %s%s", w, changeSummary(r))
				}
			}
			for _, n := range tc.not {
				if got[n] {
					t.Errorf("unexpected %s%s", n, changeSummary(r))
				}
			}
			if len(r.Changes) == 0 {
				t.Errorf("no finding for a changed schema")
			}
		})
	}
}

// TestIssue9Item1ConstBesideEnum: {"enum":["L","R"]} → plus "const":"R"
// was level none although {"a":"L"} is rejected.
func TestIssue9Item1ConstBesideEnum(t *testing.T) {
	runPropCases(t, []propCase{
		{name: "input const added", old: `{"enum":["L","R"]}`, new: `{"enum":["L","R"],"const":"R"}`,
			want: []string{"input-enum-value-removed:breaking"}},
		{name: "output const removed", output: true, old: `{"enum":["L","R"],"const":"R"}`, new: `{"enum":["L","R"]}`,
			want: []string{"output-enum-value-added:breaking"}},
		{name: "const outside the enum", old: `{"enum":["L","R"]}`, new: `{"enum":["L","R"],"const":"X"}`,
			want: []string{"input-type-narrowed:breaking"}},
	})
}

// TestIssue9Item2StructureBesideEnum: structural keywords added beside an
// enum were not checked against its values ({"type":"array","enum":[["s"],[1]]}
// plus "items":{"type":"integer"} was level none; {"a":["s"]} proves it).
func TestIssue9Item2StructureBesideEnum(t *testing.T) {
	type kw struct{ name, enum, add string }
	kws := []kw{
		{"items", `[["s"],[1]]`, `"items":{"type":"integer"}`},
		{"properties", `[{"x":"s"},{"x":1}]`, `"properties":{"x":{"type":"integer"}}`},
		{"additionalProperties", `[{"x":1},{}]`, `"additionalProperties":false`},
		{"uniqueItems", `[[1,1],[1]]`, `"uniqueItems":true`},
		{"contains", `[["s"],[1]]`, `"contains":{"type":"integer"}`},
		{"dependentRequired", `[{"x":1},{"x":1,"y":2}]`, `"dependentRequired":{"x":["y"]}`},
		{"propertyNames", `[{"x":1},{"yy":1}]`, `"propertyNames":{"maxLength":1}`},
	}
	var cases []propCase
	for _, k := range kws {
		typ := "array"
		if k.enum[1] == '{' {
			typ = "object"
		}
		plain := fmt.Sprintf(`{"type":%q,"enum":%s}`, typ, k.enum)
		with := fmt.Sprintf(`{"type":%q,"enum":%s,%s}`, typ, k.enum, k.add)
		cases = append(cases,
			propCase{name: "input " + k.name, old: plain, new: with, want: []string{"input-enum-value-removed:breaking"}},
			propCase{name: "output " + k.name, output: true, old: with, new: plain, want: []string{"output-enum-value-added:breaking"}})
	}
	runPropCases(t, cases)
}

// TestIssue9Item3FormatBesideEnum: in a 2020-12 schema, "format" added
// beside an enum was ignored while a bare format addition is
// input-format-added.
func TestIssue9Item3FormatBesideEnum(t *testing.T) {
	runPropCases(t, []propCase{
		{name: "input", old: `{"type":"string","enum":["a","b"]}`, new: `{"type":"string","enum":["a","b"],"format":"date"}`,
			want: []string{"input-format-added:breaking"}},
		{name: "output", output: true, old: `{"type":"string","enum":["a","b"],"format":"date"}`, new: `{"type":"string","enum":["a","b"]}`,
			want: []string{"output-format-removed:breaking"}},
		{name: "bare", old: `{"type":"string"}`, new: `{"type":"string","format":"date"}`,
			want: []string{"input-format-added:breaking"}},
	})
}

// TestIssue9Item5FalsePropertyRemoved: {"type":"object","properties":{"x":false}}
// → {"type":"object"} was input-property-removed breaking, though no old
// call could carry x.
func TestIssue9Item5FalsePropertyRemoved(t *testing.T) {
	runPropCases(t, []propCase{
		{name: "input false removed", old: `{"type":"object","properties":{"x":false}}`, new: `{"type":"object"}`,
			want: []string{"input-type-widened:safe"}, not: []string{"input-property-removed"}},
		{name: "input false added", old: `{"type":"object"}`, new: `{"type":"object","properties":{"x":false}}`,
			want: []string{"input-type-narrowed:breaking"}},
		{name: "output false removed", output: true, old: `{"type":"object","properties":{"x":false}}`, new: `{"type":"object"}`,
			want: []string{"output-type-widened:breaking"}},
		{name: "output false added", output: true, old: `{"type":"object"}`, new: `{"type":"object","properties":{"x":false}}`,
			want: []string{"output-type-narrowed:safe"}},
	})
}
