package diff

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

func mustParseSchema(t *testing.T, s string) *canon.Value {
	t.Helper()
	v, err := canon.Parse([]byte(s))
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return &v
}

// compareJSON runs one schema comparison on two schemas given as JSON
// ("" = absent), normalized as Compare does.
func compareJSON(t *testing.T, d Direction, old, new string, opts Options) []Change {
	t.Helper()
	side := func(s string) *canon.Value {
		if s == "" {
			return nil
		}
		v := mustParseSchema(t, s)
		canon.NormalizeSchema(v)
		return v
	}
	return compareSchemas(schemaPair{Tool: "t", Direction: d, Old: side(old), New: side(new), Opts: &opts})
}

func ruleIDs(cs []Change) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Rule)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestEquivalentSpellings pins docs/diff.md#normalization: semantically equal spellings
// produce no finding, in either direction.
func TestEquivalentSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, a, b string }{
		{"type array is anyOf of types",
			`{"type":"object","properties":{"x":{"type":["string","null"]}}}`,
			`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`},
		{"type array with type keywords is anyOf",
			`{"type":"object","properties":{"x":{"type":["string","integer"],"maxLength":3,"minimum":0}}}`,
			`{"type":"object","properties":{"x":{"oneOf":[{"type":"string","maxLength":3},{"type":"integer","minimum":0}]}}}`},
		{"enum with null branch",
			`{"type":"object","properties":{"x":{"anyOf":[{"type":"string","enum":["a","b"]},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"x":{"type":["string","null"],"enum":["a","b",null]}}}`},
		{"draft-07 tuple items is prefixItems",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
			`{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}}}`},
		{"nullable is a null type",
			`{"type":"object","properties":{"x":{"type":"string","nullable":true}}}`,
			`{"type":"object","properties":{"x":{"type":["null","string"]}}}`},
		{"integer beside number",
			`{"type":"object","properties":{"x":{"type":["integer","number"]}}}`,
			`{"type":"object","properties":{"x":{"type":"number"}}}`},
		{"inline and local ref",
			`{"type":"object","properties":{"page":{"type":"object","properties":{"limit":{"type":"integer"}}}}}`,
			`{"type":"object","properties":{"page":{"$ref":"#/$defs/Page"}},"$defs":{"Page":{"type":"object","properties":{"limit":{"type":"integer"}}}}}`},
		{"definitions and $defs",
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"string"}}}`,
			`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`},
		{"nested refs",
			`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"string","enum":["x"]}}}`,
			`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"const":"x","type":"string"}}}}}`},
		{"allOf merged",
			`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"required":["a"]}]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`},
		{"const is a one-member enum",
			`{"type":"object","properties":{"m":{"const":"fast"}}}`,
			`{"type":"object","properties":{"m":{"enum":["fast"]}}}`},
		{"draft-04 exclusive bound",
			`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":5,"exclusiveMaximum":true}}}`,
			`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","maximum":5,"exclusiveMaximum":true}},"title":"same"}`},
		{"integer exclusive bound is the next integer",
			`{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":0}}}`,
			`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`},
		{"no-op keywords",
			`{"type":"object","properties":{"l":{"type":"array","items":true,"minItems":0}},"additionalProperties":true}`,
			`{"type":"object","properties":{"l":{"type":"array"}}}`},
		{"recursive schemas, equal",
			`{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
			`{"$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}},"$ref":"#/$defs/N"}`},
	} {
		for _, d := range []Direction{Input, Output} {
			t.Run(tc.name+"/"+string(d), func(t *testing.T) {
				for _, pair := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
					var nonDoc []Change
					for _, c := range compareJSON(t, d, pair[0], pair[1], Options{}) {
						if d, ok := schemaRuleDefByID(c.Rule); !ok || d.Effect != annotates {
							nonDoc = append(nonDoc, c)
						}
					}
					if len(nonDoc) != 0 {
						t.Errorf("findings on equal spellings: %v", ruleIDs(nonDoc))
					}
				}
			})
		}
	}
}

// TestSchemaComparisons pins the rule ids found for composition and other
// reasoning cases (findings at any level; ids sorted).
func TestSchemaComparisons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		dir      Direction
		old, new string
		want     []string
	}{
		{"change deep inside a recursive schema", Input,
			`{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}}}`,
			`{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"name":{"type":"string","maxLength":3},"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}}}`,
			[]string{"input-max-length-lowered"}},
		{"not inverts the direction", Input,
			`{"type":"object","properties":{"s":{"type":"string","not":{"enum":["a","b"]}}}}`,
			`{"type":"object","properties":{"s":{"type":"string","not":{"enum":["a"]}}}}`,
			[]string{"input-composition-widened"}},
		{"not narrowed inside widens nothing for input", Input,
			`{"type":"object","properties":{"s":{"type":"string","not":{"enum":["a"]}}}}`,
			`{"type":"object","properties":{"s":{"type":"string","not":{"enum":["a","b"]}}}}`,
			[]string{"input-composition-narrowed"}},
		{"anyOf branches matched by subsumption, not position", Input,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}]}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]}]}}}`,
			nil},
		{"a oneOf branch added that overlaps", Input,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}]}}}`,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]},{"type":"object","required":["z"]}]}}}`,
			[]string{"input-any-of-branch-added", "input-one-of-overlap"}},
		{"a oneOf of types gains an overlapping branch", Input,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"string","maxLength":2}]}}}`,
			[]string{"input-composition-narrowed"}},
		{"a disjoint oneOf branch added is safe", Input,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}]}}}`,
			`{"type":"object","properties":{"v":{"oneOf":[{"type":"object","properties":{"k":{"const":"a"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"c"}},"required":["k"]}]}}}`,
			[]string{"input-any-of-branch-added"}},
		{"if/then tightened", Input,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"if":{"required":["a"]},"then":{"required":["b"]}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","maximum":3}},"if":{"required":["a"]},"then":{"required":["b"],"properties":{"b":{"minimum":1}}}}`,
			[]string{"input-max-lowered", "input-property-added"}},
		{"patternProperties value narrowed", Input,
			`{"type":"object","patternProperties":{"^x-":{"type":["string","integer"]}}}`,
			`{"type":"object","patternProperties":{"^x-":{"type":"string"}}}`,
			[]string{"input-type-narrowed"}},
		{"dependentRequired added", Input,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}`,
			[]string{"input-dependent-required-added"}},
		{"nested object inside an array", Input,
			`{"type":"object","properties":{"files":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}}`,
			`{"type":"object","properties":{"files":{"type":"array","items":{"type":"object","properties":{"path":{"type":"string"},"mode":{"type":"string"}},"required":["path","mode"]}}}}`,
			[]string{"input-property-added", "input-required-added"}},
		{"prefixItems item narrowed", Input,
			`{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"number"}]}}}`,
			`{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"integer"}]}}}`,
			[]string{"input-type-narrowed"}},
		{"scalar to array of it is coercible", Input,
			`{"type":"object","properties":{"tag":{"type":"string"}}}`,
			`{"type":"object","properties":{"tag":{"type":"array","items":{"type":"string"}}}}`,
			[]string{"input-type-coercible"}},
		{"string to number is not coercible", Input,
			`{"type":"object","properties":{"n":{"type":"string"}}}`,
			`{"type":"object","properties":{"n":{"type":"number"}}}`,
			[]string{"input-type-narrowed"}},
		{"open content is safe by default", Input,
			`{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`,
			[]string{"input-property-added"}},
		{"unresolvable reference is undecided", Input,
			`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`,
			`{"type":"object","properties":{"a":{"$ref":"https://example.com/b.json"}}}`,
			[]string{"input-composition-changed"}},
		// A propertyNames subschema only sees strings: an absent one is
		// true (any name), and "type" there changes nothing for strings.
		{"propertyNames added on an input object: only the length", Input,
			`{"type":"object","properties":{"o":{"type":"object"}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`,
			[]string{"input-max-length-lowered"}},
		{"propertyNames removed from an output object: only the length", Output,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`,
			`{"type":"object","properties":{"o":{"type":"object"}}}`,
			[]string{"output-max-length-raised"}},
		{"propertyNames loses its string type", Input,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"type":["string","integer"],"maxLength":5}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`,
			[]string{"input-max-length-lowered"}},
		{"propertyNames enum loses a member no name can be", Input,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"enum":["a",1]}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"enum":["a"]}}}}`,
			[]string{"input-schema-rewritten"}}, // equivalent, spelled differently: a notice
		{"propertyNames of integer type accepted no name", Input,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"type":"integer"}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`,
			[]string{"input-type-widened"}},
		// Subschemas met on the way to the same instance only see the
		// types of their parent.
		{"dependent schema loses a type its object parent implies", Input,
			`{"type":"object","properties":{"o":{"type":"object","dependentSchemas":{"a":{"type":"object","required":["b"]}}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}}}`,
			[]string{"input-schema-rewritten"}}, // equivalent, spelled differently: a notice
		{"then loses a type its object parent implies", Input,
			`{"type":"object","properties":{"o":{"type":"object","if":{"required":["a"]},"then":{"type":"object","required":["b"]}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}}}`,
			[]string{"input-schema-rewritten"}}, // equivalent, spelled differently: a notice
		{"anyOf branch loses a type its string parent implies", Input,
			`{"type":"object","properties":{"o":{"type":"string","anyOf":[{"type":"string","maxLength":3},{"minLength":5}]}}}`,
			`{"type":"object","properties":{"o":{"type":"string","anyOf":[{"maxLength":3},{"minLength":5}]}}}`,
			[]string{"input-schema-rewritten"}}, // equivalent, spelled differently: a notice
		{"output schema removed", Output,
			`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`, ``,
			[]string{"output-schema-removed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ruleIDs(compareJSON(t, tc.dir, tc.old, tc.new, Options{}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rules mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStrictOpenContent(t *testing.T) {
	t.Parallel()
	old := `{"type":"object","properties":{"a":{"type":"string"}}}`
	new := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`
	for _, tc := range []struct {
		strict bool
		want   Level
	}{{false, Safe}, {true, Breaking}} {
		cs := compareJSON(t, Input, old, new, Options{StrictOpenContent: tc.strict})
		if len(cs) != 1 || cs[0].Rule != "input-property-added" || cs[0].Level != tc.want {
			t.Fatalf("strict=%v: got %+v, want one input-property-added at %s", tc.strict, cs, tc.want)
		}
		if tc.strict {
			var w map[string]any
			if err := json.Unmarshal(cs[0].Witness, &w); err != nil || w["b"] == nil {
				t.Errorf("strict witness %s: want a value for b", cs[0].Witness)
			}
		}
	}
	// A closed schema stays safe under strict open content.
	closed := compareJSON(t, Input, `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`, Options{StrictOpenContent: true})
	if len(closed) != 1 || closed[0].Level != Safe {
		t.Errorf("closed schema under strict: %+v, want one safe finding", closed)
	}
}

func TestUndecidedIsBreaking(t *testing.T) {
	t.Parallel()
	// Two patterns no sample tells apart: the change cannot be decided and
	// must not pass as safe.
	cs := compareJSON(t, Output, `{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-c]{40}$"}}}`,
		`{"type":"object","properties":{"s":{"type":"string","pattern":"^[a-d]{40}$"}}}`, Options{})
	if len(cs) != 1 || cs[0].Rule != "output-pattern-changed" {
		t.Fatalf("got %v", ruleIDs(cs))
	}
	c := cs[0]
	if c.Level != Breaking {
		t.Errorf("level %s, want breaking", c.Level)
	}
	if string(c.Witness) == "null" && (!c.Undecided || c.Reason == "") {
		t.Errorf("no witness, so the finding must be undecided with a reason: %+v", c)
	}
}

func TestExampleInstance(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","minLength":3},"b":{"type":"integer","minimum":5,"multipleOf":5}},"required":["a","b"]}`,
		`{"type":"object","properties":{"mode":{"enum":["x","y"]},"when":{"type":"string","format":"date-time"}},"required":["mode","when"]}`,
		`{"type":"object","properties":{"id":{"type":"string","pattern":"^[A-Z]{2}-[0-9]{3}$"}},"required":["id"]}`,
		`{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}},"required":["paths"]}`,
		`{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"required":["n"],"$defs":{"N":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/N"}}}}}}`,
		`{"type":"object","properties":{"v":{"oneOf":[{"type":"string","maxLength":2},{"type":"integer"}]}},"required":["v"]}`,
		`{"type":"object","properties":{"limit":{"type":"integer","default":20}},"required":["limit"],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"dependentRequired":{"a":["b"]}}`,
	} {
		v := mustParseSchema(t, s)
		inst, ok := exampleInstance(v)
		if !ok {
			t.Errorf("%s: no instance", s)
			continue
		}
		c, err := schema.Compile(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(inst); err != nil {
			t.Errorf("%s: instance %v does not validate: %v", s, inst, err)
		}
	}
	if _, ok := exampleInstance(mustParseSchema(t, `{"type":"string","minLength":3,"maxLength":2}`)); ok {
		t.Errorf("an unsatisfiable schema has no instance")
	}
}

func TestRegexSamples(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`^[a-z]+$`, `^\d{3}-\d{2}$`, `(foo|bar)baz`, `^v[0-9]+(\.[0-9]+){2}$`, `[A-Z]{2,4}`, `^$`} {
		got := regexSamples(p, 3, nil)
		if len(got) == 0 {
			t.Errorf("%s: no sample", p)
		}
		re := compileRegexp(p)
		for _, s := range got {
			if !re.MatchString(s) {
				t.Errorf("%s: sample %q does not match", p, s)
			}
		}
	}
}

func TestRefsUnchanged(t *testing.T) {
	t.Parallel()
	// An unchanged remote reference is no change, whatever else changed.
	cs := compareJSON(t, Input,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"},"b":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"},"b":{"type":"string","description":"B."}}}`, Options{})
	if got := ruleIDs(cs); !slices.Equal(got, []string{"input-description-changed"}) {
		t.Errorf("got %v, want only the description change", got)
	}
	// Equal text with references to different targets is compared through
	// the references.
	cs = compareJSON(t, Input,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"string","maxLength":2}}}`, Options{})
	if got := ruleIDs(cs); !slices.Equal(got, []string{"input-max-length-lowered"}) {
		t.Errorf("got %v, want input-max-length-lowered (for a and b)", got)
	}
	if len(cs) != 2 {
		t.Errorf("want two findings (a through its reference, and b), got %d", len(cs))
	}
}

// TestWitnessSearch pins findings whose witness the generator must find:
// the finding of rule carries a witness, and it holds (input: old accepts,
// new rejects; output: the reverse).
func TestWitnessSearch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		dir      Direction
		old, new string
		rule     string
	}{
		{"uniqueItems added, no items", Input,
			`{"type":"object","properties":{"x":{"type":"array"}}}`,
			`{"type":"object","properties":{"x":{"type":"array","uniqueItems":true}}}`,
			"input-unique-items-added"},
		{"uniqueItems added, items declared", Input,
			`{"type":"object","properties":{"x":{"type":"array","items":{"type":"string"}}}}`,
			`{"type":"object","properties":{"x":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`,
			"input-unique-items-added"},
		{"uniqueItems added after prefixItems", Input,
			`{"type":"object","properties":{"x":{"type":"array","prefixItems":[{"type":"integer"}]}}}`,
			`{"type":"object","properties":{"x":{"type":"array","prefixItems":[{"type":"integer"}],"uniqueItems":true}}}`,
			"input-unique-items-added"},
		{"uniqueItems removed from output, no items", Output,
			`{"type":"object","properties":{"x":{"type":"array","uniqueItems":true}}}`,
			`{"type":"object","properties":{"x":{"type":"array"}}}`,
			"output-unique-items-removed"},
		{"propertyNames maxLength added", Input,
			`{"type":"object","properties":{"o":{"type":"object"}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`,
			"input-max-length-lowered"},
		{"propertyNames pattern became an enum", Input,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"pattern":"^a"}}}}`,
			`{"type":"object","properties":{"o":{"type":"object","propertyNames":{"enum":["a","b"]}}}}`,
			"input-enum-added"},
		{"unanchored pattern became an enum", Input,
			`{"type":"object","properties":{"o":{"type":"string","pattern":"^a"}}}`,
			`{"type":"object","properties":{"o":{"type":"string","enum":["a","b"]}}}`,
			"input-enum-added"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var found bool
			for _, c := range compareJSON(t, tc.dir, tc.old, tc.new, Options{}) {
				if c.Rule != tc.rule {
					continue
				}
				found = true
				if string(c.Witness) == "null" {
					t.Fatalf("%s at %s: no witness (%s)", c.Rule, c.Path, c.NoWitness)
				}
				src, dst := mustParseSchema(t, tc.old), mustParseSchema(t, tc.new)
				if tc.dir == Output {
					src, dst = dst, src
				}
				if !acceptsJSON(t, src, c.Witness) || acceptsJSON(t, dst, c.Witness) {
					t.Errorf("witness %s does not hold", c.Witness)
				}
			}
			if !found {
				t.Errorf("no %s finding", tc.rule)
			}
		})
	}
}
