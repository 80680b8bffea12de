package diff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/toolset"
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
	// none: the schemas are equivalent, the report holds no finding.
	none bool
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
				if d, ok := schemaRuleDefByID(c.Rule); ok && d.Effect == annotates && c.Notice == nil {
					t.Errorf("%s at %s: an annotation change without a notice", c.Rule, c.Path)
				}
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
			if tc.none && len(r.Changes) > 0 {
				t.Errorf("equivalent schemas, findings:%s", changeSummary(r))
			}
			if !tc.none && len(r.Changes) == 0 {
				t.Errorf("no finding for a changed schema")
			}
		})
	}
}

// TestIssue9Item1ConstBesideEnum: {"enum":["L","R"]} → plus "const":"R"
// was level none although {"a":"L"} is rejected.
func TestIssue9Item1ConstBesideEnum(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestIssue9Item7EquivalentAndEmpty: equivalent schemas were reported as
// decided breaking findings without a witness, and so were changes from a
// schema that accepts nothing.
func TestIssue9Item7EquivalentAndEmpty(t *testing.T) {
	t.Parallel()
	runPropCases(t, []propCase{
		{name: "number step 1 is integer", old: `{"type":"number","multipleOf":1}`, new: `{"type":"integer"}`, none: true},
		{name: "integer is number step 1", old: `{"type":"integer"}`, new: `{"type":"number","multipleOf":1}`, none: true},
		{name: "maxItems 0 is items false", old: `{"maxItems":0}`, new: `{"items":false}`, none: true},
		{name: "prefix closed", old: `{"type":"array","prefixItems":[{}],"items":false}`, new: `{"type":"array","maxItems":1}`, none: true},
		{name: "from nothing", old: `{"not":{}}`, new: `{"type":"string"}`, want: []string{"input-type-widened:safe"}},
		{name: "from an empty enum", old: `{"type":"string","enum":[1]}`, new: `{"type":"string"}`, want: []string{"input-type-widened:safe"}},
		{name: "output from nothing", output: true, old: `{"not":{}}`, new: `{"type":"string"}`, want: []string{"output-type-widened:breaking"}},
		{name: "to nothing", old: `{"type":"string"}`, new: `{"allOf":[{"type":"string"},false]}`, want: []string{"input-type-narrowed:breaking"}},
		{name: "number step 2", old: `{"type":"number","multipleOf":2}`, new: `{"type":"integer"}`, want: []string{"input-multiple-of-relaxed:safe"}},
	})
}

// TestIssue9Item7WitnessOrReason: over every rule fixture and every pair of
// successive real versions, a finding at facade level or above has a
// witness, is undecided, or carries a reason its rule documents.
func TestIssue9Item7WitnessOrReason(t *testing.T) {
	t.Parallel()
	for _, p := range realPairs(t) {
		old, new := loadReal(t, p[0]), loadReal(t, p[1])
		r := Compare(old, new, Options{})
		for _, c := range r.Changes {
			if !witnessOrReason(c) {
				t.Errorf("%s → %s: %s %s %s %s: no witness, not undecided, no documented reason (%s)", p[0], p[1], c.Tool, c.Rule, c.Path, c.Level, c.NoWitness)
			}
		}
	}
	dirs, err := os.ReadDir(filepath.Join("testdata", "rules"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		for _, dir := range fixtureCases(t, d.Name()) {
			old := decodeToolSet(t, "old", readFile(t, filepath.Join(dir, "old.json")))
			new := decodeToolSet(t, "new", readFile(t, filepath.Join(dir, "new.json")))
			for _, c := range Compare(old, new, Options{Now: fixtureNow}).Changes {
				if !witnessOrReason(c) {
					t.Errorf("%s: %s %s %s %s: no witness, not undecided, no documented reason (%s)", dir, c.Tool, c.Rule, c.Path, c.Level, c.NoWitness)
				}
			}
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// realPairs lists successive versions of each server in testdata/realdata
// (in version order), as names loadReal reads.
func realPairs(t *testing.T) [][2]string {
	t.Helper()
	var out [][2]string
	for _, server := range []string{"github-mcp-server", "server-filesystem"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "realdata", server, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range files {
			names = append(names, server+"/"+strings.TrimSuffix(filepath.Base(f), ".json"))
		}
		slices.SortFunc(names, compareVersionNames)
		for i := 1; i < len(names); i++ {
			out = append(out, [2]string{names[i-1], names[i]})
		}
	}
	return out
}

// compareVersionNames orders "server/v1.10.0" after "server/v1.9.0": the
// dotted numbers compare as numbers.
func compareVersionNames(a, b string) int {
	num := func(s string) []int {
		var out []int
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
		return out
	}
	return slices.Compare(num(a), num(b))
}

// TestIssue9Item6ArgumentsAreObjects: inputSchema {} → {"type":"object"}
// was input-type-narrowed breaking with "witness: none", while lint tells
// the user to make exactly that change. Tool arguments (and structured
// results) are JSON objects, so the root of a tool schema ranges over
// objects only.
func TestIssue9Item6ArgumentsAreObjects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, key, old, new string }{
		{"input type added", "inputSchema", `{}`, `{"type":"object"}`},
		{"input type list", "inputSchema", `{"type":["object","null"]}`, `{"type":"object"}`},
		{"input type list widened", "inputSchema", `{"type":"object"}`, `{"type":["object","string"]}`},
		{"input not a string", "inputSchema", `{"type":"object"}`, `{"type":"object","not":{"type":"string"}}`},
		{"input if integer", "inputSchema", `{"type":"object"}`, `{"type":"object","if":{"type":"integer"},"then":false}`},
		{"output type added", "outputSchema", `{}`, `{"type":"object"}`},
		{"output type list", "outputSchema", `{"type":"object"}`, `{"type":["object","null"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := func(s string) []byte {
				in := `{"type":"object"}`
				out := ""
				if tc.key == "inputSchema" {
					in = s
				} else {
					out = `,"outputSchema":` + s
				}
				return []byte(fmt.Sprintf(`{"tools":[{"name":"t","description":"d","inputSchema":%s%s}]}`, in, out))
			}
			old, new := decodeToolSet(t, "old", doc(tc.old)), decodeToolSet(t, "new", doc(tc.new))
			for _, pair := range [][2]*toolset.Set{{old, new}, {new, old}} {
				r := Compare(pair[0], pair[1], Options{Now: fixtureNow, Verify: 64})
				checkWitnesses(t, pair[0], pair[1], r)
				for _, c := range r.Changes {
					if c.Direction != ToolD {
						t.Errorf("no object is affected, got%s", changeSummary(r))
						break
					}
				}
			}
		})
	}
}

// TestIssue9Item8ClosedOutputPropertyRemoved: an output object with
// additionalProperties: false losing an optional property was
// output-property-removed breaking, though every new result was valid
// before. Policy: validation decides the level (safe), the notice tells
// readers of the property that it is gone; on an open object the property
// may now hold anything, which stays breaking, with a witness.
func TestIssue9Item8ClosedOutputPropertyRemoved(t *testing.T) {
	t.Parallel()
	runPropCases(t, []propCase{
		{name: "closed", output: true,
			old:  `{"type":"object","properties":{"x":{"type":"string"},"y":{}},"additionalProperties":false}`,
			new:  `{"type":"object","properties":{"y":{}},"additionalProperties":false}`,
			want: []string{"output-property-removed-closed:safe"}, not: []string{"output-property-removed"}},
		{name: "open", output: true,
			old:  `{"type":"object","properties":{"x":{"type":"string"},"y":{}}}`,
			new:  `{"type":"object","properties":{"y":{}}}`,
			want: []string{"output-property-removed:breaking"}},
		{name: "held by additionalProperties", output: true,
			old:  `{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":{"type":"string","maxLength":3}}`,
			new:  `{"type":"object","additionalProperties":{"type":"string","maxLength":3}}`,
			want: []string{"output-property-removed-closed:safe"}, not: []string{"output-property-removed"}},
		{name: "widened by additionalProperties", output: true,
			old:  `{"type":"object","properties":{"x":{"type":"string","maxLength":3}},"additionalProperties":{"type":"string"}}`,
			new:  `{"type":"object","additionalProperties":{"type":"string"}}`,
			want: []string{"output-property-removed:breaking"}},
	})
	old := decodeToolSet(t, "old", propToolSet(t, "old", `{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}`, true))
	new := decodeToolSet(t, "new", propToolSet(t, "new", `{"type":"object","additionalProperties":false}`, true))
	for _, c := range Compare(old, new, Options{}).Changes {
		if c.Rule == "output-property-removed-closed" && (c.Notice == nil || !strings.Contains(*c.Notice, `"x"`)) {
			t.Errorf("the notice must name the property: %v", c.Notice)
		}
	}
}

// TestIssue9Item4MinContainsZero: "minContains": 0 added beside contains
// was input-min-contains-raised (breaking); it lowers the bound ([] becomes
// valid).
func TestIssue9Item4MinContainsZero(t *testing.T) {
	t.Parallel()
	runPropCases(t, []propCase{
		{name: "input zero added", old: `{"type":"array","contains":{"type":"string"}}`, new: `{"type":"array","contains":{"type":"string"},"minContains":0}`,
			want: []string{"input-contains-removed:safe"}, not: []string{"input-min-contains-raised"}},
		{name: "input zero with max", old: `{"type":"array","contains":{"type":"string"},"maxContains":3}`, new: `{"type":"array","contains":{"type":"string"},"minContains":0,"maxContains":3}`,
			want: []string{"input-min-contains-lowered:safe"}, not: []string{"input-min-contains-raised"}},
		{name: "input two added", old: `{"type":"array","contains":{"type":"string"}}`, new: `{"type":"array","contains":{"type":"string"},"minContains":2}`,
			want: []string{"input-min-contains-raised:breaking"}},
		{name: "output zero removed", output: true, old: `{"type":"array","contains":{"type":"string"},"minContains":0,"maxContains":3}`, new: `{"type":"array","contains":{"type":"string"},"maxContains":3}`,
			want: []string{"output-min-contains-raised:safe"}},
	})
}

// TestIssue9Item10AnnotationChanges: output description, default, title,
// examples, input title, examples, deprecated: true, and annotations inside
// anyOf/oneOf branches were never reported. Each is a safe finding with a
// notice, in both directions, at any depth.
func TestIssue9Item10AnnotationChanges(t *testing.T) {
	t.Parallel()
	var cases []propCase
	for _, kw := range []struct{ name, a, b string }{
		{"description", `"x"`, `"y"`},
		{"default", `"x"`, `"y"`},
		{"title", `"x"`, `"y"`},
		{"examples", `["x"]`, `["y"]`},
		{"deprecated", `false`, `true`},
	} {
		for _, out := range []bool{false, true} {
			dir := "input"
			if out {
				dir = "output"
			}
			rule := dir + "-" + kw.name + "-changed:safe"
			plain := `{"type":"string"}`
			with := func(v string) string { return fmt.Sprintf(`{"type":"string",%q:%s}`, kw.name, v) }
			branch := func(v string) string {
				return fmt.Sprintf(`{"anyOf":[{"type":"string",%q:%s},{"type":"object","properties":{"z":{"type":"integer"}}}]}`, kw.name, v)
			}
			cases = append(cases,
				propCase{name: dir + " " + kw.name + " added", output: out, old: plain, new: with(kw.b), want: []string{rule}},
				propCase{name: dir + " " + kw.name + " removed", output: out, old: with(kw.b), new: plain, want: []string{rule}},
				propCase{name: dir + " " + kw.name + " changed", output: out, old: with(kw.a), new: with(kw.b), want: []string{rule}},
				propCase{name: dir + " " + kw.name + " in anyOf branch", output: out, old: branch(kw.a), new: branch(kw.b), want: []string{rule}},
				propCase{name: dir + " " + kw.name + " deep", output: out,
					old:  fmt.Sprintf(`{"type":"array","items":{"oneOf":[{"type":"object","properties":{"q":%s}},{"type":"null"}]}}`, with(kw.a)),
					new:  fmt.Sprintf(`{"type":"array","items":{"oneOf":[{"type":"object","properties":{"q":%s}},{"type":"null"}]}}`, with(kw.b)),
					want: []string{rule}},
			)
		}
	}
	runPropCases(t, cases)
	// Reordered branches are matched by what they validate, not position:
	// nothing changed.
	old := decodeToolSet(t, "old", propToolSet(t, "old", `{"anyOf":[{"type":"string","description":"s"},{"type":"integer","description":"i"}]}`, false))
	new := decodeToolSet(t, "new", propToolSet(t, "new", `{"anyOf":[{"type":"integer","description":"i"},{"type":"string","description":"s"}]}`, false))
	if r := Compare(old, new, Options{}); len(r.Changes) != 0 {
		t.Errorf("reordered branches:%s", changeSummary(r))
	}
}

// TestIssue9Item9MissingFindings: the accepted set widened or narrowed
// (or was respelled) and the report said nothing.
func TestIssue9Item9MissingFindings(t *testing.T) {
	t.Parallel()
	runPropCases(t, []propCase{
		{name: "anyOf widens a bound", old: `{"type":"integer","minimum":1}`, new: `{"anyOf":[{"type":"integer","minimum":1},{"type":"integer","maximum":1}]}`,
			want: []string{"input-composition-widened:safe"}},
		{name: "anyOf widens an enum", old: `{"type":"string","enum":["a"]}`, new: `{"anyOf":[{"type":"string","enum":["a"]},{"type":"string"}]}`,
			want: []string{"input-composition-widened:safe"}},
		{name: "output anyOf loses an object branch", output: true,
			old:  `{"anyOf":[{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},{"type":"object","properties":{"j":{"type":"string"}},"required":["j"]},{"type":"string"}]}`,
			new:  `{"anyOf":[{"type":"object","properties":{"j":{"type":"string"}},"required":["j"]},{"type":"string"}]}`,
			want: []string{"output-composition-narrowed:safe"}, not: []string{"output-composition-widened"}},
		{name: "output oneOf of twins", output: true, old: `{}`, new: `{"oneOf":[{"type":"string"},{"type":"string"}]}`,
			want: []string{"output-composition-narrowed:safe"}},
		{name: "input oneOf of twins", old: `{}`, new: `{"oneOf":[{"type":"string"},{"type":"string"}]}`,
			want: []string{"input-composition-narrowed:breaking"}},
		{name: "input anyOf loses an object branch", old: `{"anyOf":[{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]},{"type":"object","properties":{"j":{"type":"string"}},"required":["j"]},{"type":"string"}]}`,
			new:  `{"anyOf":[{"type":"object","properties":{"j":{"type":"string"}},"required":["j"]},{"type":"string"}]}`,
			want: []string{"input-any-of-branch-removed:breaking"}},
		{name: "readOnly added", old: `{"type":"string"}`, new: `{"type":"string","readOnly":true}`,
			want: []string{"input-other-keyword-changed:safe"}},
	})
}

// TestIssue9NoSilentChange is the engine's invariant: when the normalized
// forms of a tool differ, the report holds at least one finding for that
// tool. It runs over every pair of successive real versions and over
// mutated real tools (seeded).
func TestIssue9NoSilentChange(t *testing.T) {
	t.Parallel()
	check := func(name string, old, new *toolset.Set) {
		t.Helper()
		r := Compare(old, new, Options{})
		found := map[string]bool{}
		for _, c := range r.Changes {
			found[c.Tool] = true
		}
		for _, ot := range old.Tools {
			nt := new.Lookup(ot.Name)
			if nt == nil || found[ot.Name] || sameNormalized(ot, nt) {
				continue
			}
			t.Errorf("%s: tool %s changed and the report says nothing\nold %s\nnew %s", name, ot.Name, jcsString(&ot.Value), jcsString(&nt.Value))
		}
	}
	for _, p := range realPairs(t) {
		check(p[0]+" → "+p[1], loadReal(t, p[0]), loadReal(t, p[1]))
	}
	n := 600
	if testing.Short() {
		n = 100
	}
	sets := []*toolset.Set{loadReal(t, "server-filesystem/2025.11.25"), loadReal(t, "github-mcp-server/v1.10.0")}
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < n && !t.Failed(); i++ {
		full := sets[i%len(sets)]
		tl := full.Tools[rng.IntN(len(full.Tools))]
		one := decodeToolSet(t, "one", append(append([]byte(`{"tools":[`), tl.Raw...), "]}"...))
		choices := make([]byte, 12)
		for j := range choices {
			choices[j] = byte(rng.IntN(256))
		}
		m := mutateSet(t, one, choices, defaultMutations)
		check(fmt.Sprintf("mutation %d", i), one, m)
		check(fmt.Sprintf("mutation %d reversed", i), m, one)
	}
}

// sameNormalized reports whether two tools have one normalized form:
// canon.NormalizeTool, with each schema replaced by the engine's
// normalization of it (its order-free key).
func sameNormalized(a, b *toolset.Tool) bool {
	key := func(t *toolset.Tool) string {
		v := t.Value.Clone()
		canon.NormalizeTool(&v)
		var out []byte
		for _, k := range []string{"inputSchema", "outputSchema"} {
			if s := v.Get(k); s != nil && (s.Kind == canon.Object || s.Kind == canon.Bool) {
				sd := newSide(s)
				objectRoot(sd)
				out = append(out, orderFreeKey(sd.root)...)
				v.Delete(k)
			}
		}
		return string(append(out, canon.AppendJCS(nil, &v)...))
	}
	return key(a) == key(b)
}

// TestIssue9Item6LintAdviceNeverBreaks applies each schema fix lint
// advises and diffs before against after: following the advice must never
// make diff fail (nothing at facade level or above). The strict profile's
// object-open advice (close every object) is left out on purpose: closing
// an object rejects extra keys old calls may send, which diff reports as
// input-additional-properties-closed; the advice says so and is given for
// new tools (lint.RuleObjectOpen's message).
func TestIssue9Item6LintAdviceNeverBreaks(t *testing.T) {
	t.Parallel()
	tool := func(members string) []byte {
		return []byte(`{"tools":[{"name":"t","description":"d"` + members + `}]}`)
	}
	for _, tc := range []struct {
		name, rule, before, after string
	}{
		{"input schema missing", lint.RuleInputSchemaMissing, ``, `,"inputSchema":{"type":"object"}`},
		{"input schema null", lint.RuleInputSchemaMissing, `,"inputSchema":null`, `,"inputSchema":{"type":"object"}`},
		{"output schema null", lint.RuleOutputSchemaNotObject, `,"inputSchema":{"type":"object"},"outputSchema":null`, `,"inputSchema":{"type":"object"}`},
		{"input no type", lint.RuleInputSchemaNotObject, `,"inputSchema":{}`, `,"inputSchema":{"type":"object"}`},
		{"input no type, properties", lint.RuleInputSchemaNotObject, `,"inputSchema":{"properties":{"a":{"type":"string"}}}`, `,"inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}`},
		{"input type array of object", lint.RuleInputSchemaNotObject, `,"inputSchema":{"type":["object"]}`, `,"inputSchema":{"type":"object"}`},
		{"input type with null", lint.RuleInputSchemaNotObject, `,"inputSchema":{"type":["object","null"]}`, `,"inputSchema":{"type":"object"}`},
		{"output no type", lint.RuleOutputSchemaNotObject, `,"inputSchema":{"type":"object"},"outputSchema":{}`, `,"inputSchema":{"type":"object"},"outputSchema":{"type":"object"}`},
		{"draft-07 rewritten", lint.RuleSchemaDraft,
			`,"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"$ref":"#/definitions/P"},"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},"definitions":{"P":{"type":"string"}}}`,
			`,"inputSchema":{"type":"object","properties":{"p":{"$ref":"#/$defs/P"},"t":{"type":"array","prefixItems":[{"type":"string"}],"items":false}},"$defs":{"P":{"type":"string"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, after := decodeToolSet(t, "before", tool(tc.before)), decodeToolSet(t, "after", tool(tc.after))
			if !hasLintRule(lint.Check(before, lint.Options{}), tc.rule) {
				t.Fatalf("lint does not give the %s advice on %s", tc.rule, tc.before)
			}
			if hasLintRule(lint.Check(after, lint.Options{}), tc.rule) {
				t.Fatalf("the fix still draws %s", tc.rule)
			}
			r := Compare(before, after, Options{Now: fixtureNow, Verify: 64})
			if r.Level >= Facade {
				t.Errorf("following lint's advice is reported %s:%s", r.Level, changeSummary(r))
			}
		})
	}
}

func hasLintRule(fs []lint.Finding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
