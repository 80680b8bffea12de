package canon_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

// TestNormalizeTool covers each normalization of canon.NormalizeTool (docs/diff.md#normalization), comparing canonical forms, and checks that a second application
// changes nothing.
func TestNormalizeTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, want string
	}{
		{"hints equal to defaults dropped",
			`{"name":"t","annotations":{"title":"T","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`,
			`{"annotations":{"title":"T"},"name":"t"}`},
		{"hints differing from defaults kept",
			`{"name":"t","annotations":{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`,
			`{"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},"name":"t"}`},
		{"non-boolean hint kept", `{"name":"t","annotations":{"readOnlyHint":"false"}}`,
			`{"annotations":{"readOnlyHint":"false"},"name":"t"}`},
		{"unknown hint kept", `{"name":"t","annotations":{"cheapHint":false}}`,
			`{"annotations":{"cheapHint":false},"name":"t"}`},
		{"annotations left empty dropped", `{"name":"t","annotations":{"readOnlyHint":false,"openWorldHint":true}}`,
			`{"name":"t"}`},
		{"empty annotations dropped", `{"name":"t","annotations":{}}`, `{"name":"t"}`},
		{"annotations not an object kept", `{"name":"t","annotations":null}`, `{"annotations":null,"name":"t"}`},
		{"const becomes enum",
			`{"name":"t","inputSchema":{"type":"object","properties":{"m":{"const":"x"},"o":{"const":{"b":[2,1]}}}}}`,
			`{"inputSchema":{"properties":{"m":{"enum":["x"]},"o":{"enum":[{"b":[2,1]}]}},"type":"object"},"name":"t"}`},
		{"const beside enum kept",
			`{"name":"t","inputSchema":{"const":"x","enum":["x","y"]}}`,
			`{"inputSchema":{"const":"x","enum":["x","y"]},"name":"t"}`},
		{"const in instance data kept",
			`{"name":"t","inputSchema":{"default":{"const":1},"properties":{"const":{"type":"string"}}}}`,
			`{"inputSchema":{"default":{"const":1},"properties":{"const":{"type":"string"}}},"name":"t"}`},
		{"one-element type array",
			`{"name":"t","inputSchema":{"type":["object"],"properties":{"a":{"type":["string"]},"b":{"type":["string","null"]},"c":{"type":[1]}}}}`,
			`{"inputSchema":{"properties":{"a":{"type":"string"},"b":{"type":["null","string"]},"c":{"type":[1]}},"type":"object"},"name":"t"}`},
		{"definitions become $defs with $ref rewrite",
			`{"name":"t","inputSchema":{"definitions":{"a":{"type":"string"},"b":{"$ref":"#/definitions/a"}},"properties":{"x":{"$ref":"#/definitions/b"},"y":{"items":{"$ref":"#/definitions/a/properties/z"}},"z":{"$ref":"other.json#/definitions/a"}},"default":{"$ref":"#/definitions/a"}}}`,
			`{"inputSchema":{"$defs":{"a":{"type":"string"},"b":{"$ref":"#/$defs/a"}},"default":{"$ref":"#/definitions/a"},"properties":{"x":{"$ref":"#/$defs/b"},"y":{"items":{"$ref":"#/$defs/a/properties/z"}},"z":{"$ref":"other.json#/definitions/a"}}},"name":"t"}`},
		{"only references into definitions rewritten",
			`{"name":"t","inputSchema":{"definitions":{"a":{}},"definitionsX":{"a":{}},"properties":{"x":{"$ref":"#/definitions"},"y":{"$ref":"#/definitionsX/a"}}}}`,
			`{"inputSchema":{"$defs":{"a":{}},"definitionsX":{"a":{}},"properties":{"x":{"$ref":"#/$defs"},"y":{"$ref":"#/definitionsX/a"}}},"name":"t"}`},
		{"definitions merged into existing $defs",
			`{"name":"t","inputSchema":{"$defs":{"a":{"type":"string"}},"definitions":{"b":{"type":"number"}},"properties":{"x":{"$ref":"#/definitions/b"},"y":{"$ref":"#/$defs/a"}}}}`,
			`{"inputSchema":{"$defs":{"a":{"type":"string"},"b":{"type":"number"}},"properties":{"x":{"$ref":"#/$defs/b"},"y":{"$ref":"#/$defs/a"}}},"name":"t"}`},
		{"definitions colliding with $defs kept",
			`{"name":"t","inputSchema":{"$defs":{"a":{"type":"string"}},"definitions":{"a":{"type":"number"}},"properties":{"x":{"$ref":"#/definitions/a"},"y":{"$ref":"#/$defs/a"}}}}`,
			`{"inputSchema":{"$defs":{"a":{"type":"string"}},"definitions":{"a":{"type":"number"}},"properties":{"x":{"$ref":"#/definitions/a"},"y":{"$ref":"#/$defs/a"}}},"name":"t"}`},
		{"empty properties and required dropped",
			`{"name":"t","inputSchema":{"type":"object","properties":{},"required":[]},"outputSchema":{"type":"object","properties":{"a":{"type":"object","properties":{},"required":[]}}}}`,
			`{"inputSchema":{"type":"object"},"name":"t","outputSchema":{"properties":{"a":{"type":"object"}},"type":"object"}}`},
		{"property named properties kept",
			`{"name":"t","inputSchema":{"properties":{"properties":{},"required":{"type":"array"}}}}`,
			`{"inputSchema":{"properties":{"properties":{},"required":{"type":"array"}}},"name":"t"}`},
		{"null inputSchema", `{"name":"get_me","inputSchema":null}`, `{"inputSchema":null,"name":"get_me"}`},
		{"not an object", `[1]`, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.tool))
			if err != nil {
				t.Fatal(err)
			}
			canon.NormalizeTool(&v)
			got := string(canon.AppendTool(nil, &v))
			if got != tt.want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(tt.want, got))
			}
			canon.NormalizeTool(&v)
			if again := string(canon.AppendTool(nil, &v)); again != got {
				t.Errorf("not idempotent (-first +second):\n%s", cmp.Diff(got, again))
			}
		})
	}
}

// TestNormalizeToolKeepsClone checks that normalizing a Clone leaves the
// original tree untouched.
func TestNormalizeToolKeepsClone(t *testing.T) {
	t.Parallel()
	src := `{"name":"t","annotations":{"readOnlyHint":false},"inputSchema":{"type":["object"],"definitions":{"a":{"const":1}},"properties":{"x":{"$ref":"#/definitions/a"}}}}`
	v, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	before := string(canon.AppendJCS(nil, &v))
	c := v.Clone()
	canon.NormalizeTool(&c)
	if after := string(canon.AppendJCS(nil, &v)); after != before {
		t.Errorf("original changed (-before +after):\n%s", cmp.Diff(before, after))
	}
	if string(canon.AppendJCS(nil, &c)) == before {
		t.Error("the clone was not normalized")
	}
}

func TestWalkSchemas(t *testing.T) {
	t.Parallel()
	src := `{"properties":{"a/b":{"items":[{"not":true},{}]},"c~":{"anyOf":[{"$ref":"#"}]}},"default":{"properties":{"z":{}}},"dependencies":{"d":["x"],"e":{"if":{}}},"$defs":{"f":false}}`
	v, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	canon.WalkSchemas(&v, func(_ *canon.Value, ptr string) { got = append(got, ptr) })
	want := []string{
		"",
		"/properties/a~1b",
		"/properties/a~1b/items/0",
		"/properties/a~1b/items/0/not",
		"/properties/a~1b/items/1",
		"/properties/c~0",
		"/properties/c~0/anyOf/0",
		"/dependencies/e",
		"/dependencies/e/if",
		"/$defs/f",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestEscapePointer(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"a": "a", "a/b": "a~1b", "m~n": "m~0n", "~/": "~0~1", "": ""} {
		if got := canon.EscapePointer(in); got != want {
			t.Errorf("EscapePointer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnnotationDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		def, ok bool
	}{
		{"readOnlyHint", false, true},
		{"destructiveHint", true, true},
		{"idempotentHint", false, true},
		{"openWorldHint", true, true},
		{"title", false, false},
	}
	for _, tt := range tests {
		def, ok := canon.AnnotationDefault(tt.name)
		if def != tt.def || ok != tt.ok {
			t.Errorf("AnnotationDefault(%q) = %v, %v; want %v, %v", tt.name, def, ok, tt.def, tt.ok)
		}
	}
}
