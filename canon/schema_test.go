package canon_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

// TestAppendSchemaSetSorting checks docs/canon.md#schema-aware-set-sorting: required, type and enum are
// sorted as sets in every schema position reached through schema keywords,
// and nowhere else. Each "kept" case is adversarial: a key spelled like a set
// keyword in an instance-data position, which must keep its array order.
func TestAppendSchemaSetSorting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string
	}{
		// Schema positions: sorted.
		{"root", `{"type":["string","null"],"enum":["b","a",null],"required":["y","x"]}`,
			`{"enum":["a","b",null],"required":["x","y"],"type":["null","string"]}`},
		{"properties", `{"properties":{"p":{"type":["string","integer"],"required":["b","a"]}}}`,
			`{"properties":{"p":{"required":["a","b"],"type":["integer","string"]}}}`},
		{"items object", `{"items":{"enum":[3,1,2]}}`, `{"items":{"enum":[1,2,3]}}`},
		{"items draft-07 array", `{"items":[{"enum":[3,1]},{"type":["string","boolean"]}]}`,
			`{"items":[{"enum":[1,3]},{"type":["boolean","string"]}]}`},
		{"prefixItems", `{"prefixItems":[{"enum":["z","y"]}]}`, `{"prefixItems":[{"enum":["y","z"]}]}`},
		{"additionalProperties", `{"additionalProperties":{"required":["b","a"]}}`, `{"additionalProperties":{"required":["a","b"]}}`},
		{"additionalItems", `{"additionalItems":{"enum":["b","a"]}}`, `{"additionalItems":{"enum":["a","b"]}}`},
		{"unevaluatedProperties", `{"unevaluatedProperties":{"enum":["b","a"]}}`, `{"unevaluatedProperties":{"enum":["a","b"]}}`},
		{"unevaluatedItems", `{"unevaluatedItems":{"enum":["b","a"]}}`, `{"unevaluatedItems":{"enum":["a","b"]}}`},
		{"allOf anyOf oneOf", `{"allOf":[{"enum":[2,1]}],"anyOf":[{"type":["null","array"]}],"oneOf":[{"required":["d","c"]}]}`,
			`{"allOf":[{"enum":[1,2]}],"anyOf":[{"type":["array","null"]}],"oneOf":[{"required":["c","d"]}]}`},
		{"not", `{"not":{"enum":["b","a"]}}`, `{"not":{"enum":["a","b"]}}`},
		{"if then else", `{"if":{"required":["b","a"]},"then":{"required":["d","c"]},"else":{"type":["string","number"]}}`,
			`{"else":{"type":["number","string"]},"if":{"required":["a","b"]},"then":{"required":["c","d"]}}`},
		{"$defs", `{"$defs":{"d":{"enum":["b","a"]}}}`, `{"$defs":{"d":{"enum":["a","b"]}}}`},
		{"definitions", `{"definitions":{"d":{"enum":["b","a"]}}}`, `{"definitions":{"d":{"enum":["a","b"]}}}`},
		{"patternProperties", `{"patternProperties":{"^x":{"type":["string","null"]}}}`, `{"patternProperties":{"^x":{"type":["null","string"]}}}`},
		{"dependentSchemas", `{"dependentSchemas":{"a":{"required":["c","b"]}}}`, `{"dependentSchemas":{"a":{"required":["b","c"]}}}`},
		{"dependencies schema value", `{"dependencies":{"a":{"required":["c","b"]}}}`, `{"dependencies":{"a":{"required":["b","c"]}}}`},
		{"contains propertyNames contentSchema", `{"contains":{"enum":[2,1]},"propertyNames":{"enum":["b","a"]},"contentSchema":{"required":["b","a"]}}`,
			`{"contains":{"enum":[1,2]},"contentSchema":{"required":["a","b"]},"propertyNames":{"enum":["a","b"]}}`},
		{"deep", `{"properties":{"a":{"items":{"anyOf":[{"properties":{"b":{"required":["y","x"]}}}]}}}}`,
			`{"properties":{"a":{"items":{"anyOf":[{"properties":{"b":{"required":["x","y"]}}}]}}}}`},
		{"enum members by canonical encoding", `{"enum":[{"b":1,"a":[2,1]},"x",10,9,null,true,false,[2,1]]}`,
			`{"enum":["x",10,9,[2,1],false,null,true,{"a":[2,1],"b":1}]}`},
		{"enum duplicates kept", `{"enum":["b","a","b"]}`, `{"enum":["a","b","b"]}`},
		{"enum strings by UTF-16", `{"enum":["\ufb33","\ud83d\ude00","€"]}`, "{\"enum\":[\"€\",\"😀\",\"\ufb33\"]}"},
		{"property named like a keyword holding a schema", `{"properties":{"enum":{"enum":["b","a"]},"type":{"type":["string","null"]},"required":{"required":["b","a"]}}}`,
			`{"properties":{"enum":{"enum":["a","b"]},"required":{"required":["a","b"]},"type":{"type":["null","string"]}}}`},

		// Instance data inside schemas: kept.
		{"default object", `{"default":{"required":["b","a"],"type":["s","n"],"enum":[2,1]}}`,
			`{"default":{"enum":[2,1],"required":["b","a"],"type":["s","n"]}}`},
		{"default array", `{"default":["b","a"]}`, `{"default":["b","a"]}`},
		{"const", `{"const":{"type":["string","null"]}}`, `{"const":{"type":["string","null"]}}`},
		{"examples", `{"examples":[{"enum":[2,1]},["b","a"]]}`, `{"examples":[{"enum":[2,1]},["b","a"]]}`},
		{"enum member inside", `{"enum":[{"required":["b","a"]}]}`, `{"enum":[{"required":["b","a"]}]}`},
		{"schema keywords inside default", `{"default":{"properties":{"p":{"required":["b","a"]}},"items":{"enum":[2,1]}}}`,
			`{"default":{"items":{"enum":[2,1]},"properties":{"p":{"required":["b","a"]}}}}`},
		{"property named required under properties", `{"properties":{"required":["b","a"],"type":["s","n"],"enum":[2,1]}}`,
			`{"properties":{"enum":[2,1],"required":["b","a"],"type":["s","n"]}}`},
		{"$defs entry named type", `{"$defs":{"type":["b","a"]}}`, `{"$defs":{"type":["b","a"]}}`},
		{"patternProperties entry named enum", `{"patternProperties":{"enum":[2,1]}}`, `{"patternProperties":{"enum":[2,1]}}`},
		{"dependencies property list", `{"dependencies":{"a":["c","b"]},"dependentRequired":{"a":["c","b"]}}`,
			`{"dependencies":{"a":["c","b"]},"dependentRequired":{"a":["c","b"]}}`},
		{"unknown keyword", `{"x-ui":{"required":["b","a"]},"$comment":"c","title":"t","description":"d"}`,
			`{"$comment":"c","description":"d","title":"t","x-ui":{"required":["b","a"]}}`},
		{"_meta in schema", `{"_meta":{"type":["b","a"]}}`, `{"_meta":{"type":["b","a"]}}`},
		{"allOf given an object", `{"allOf":{"enum":[2,1]}}`, `{"allOf":{"enum":[2,1]}}`},
		{"not given an array", `{"not":[{"enum":[2,1]}]}`, `{"not":[{"enum":[2,1]}]}`},
		{"properties given an array", `{"properties":[{"enum":[2,1]}]}`, `{"properties":[{"enum":[2,1]}]}`},
		{"prefixItems inner arrays", `{"prefixItems":[["b","a"]]}`, `{"prefixItems":[["b","a"]]}`},
		{"set keyword not an array", `{"type":"string","enum":"x","required":true}`, `{"enum":"x","required":true,"type":"string"}`},
		{"one-element and empty sets", `{"enum":[[2,1]],"required":[]}`, `{"enum":[[2,1]],"required":[]}`},
		{"boolean subschemas", `{"items":false,"not":true,"additionalProperties":false}`, `{"additionalProperties":false,"items":false,"not":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(canon.AppendSchema(nil, &v)); got != tt.want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(tt.want, got))
			}
		})
	}
}

// TestAppendToolPositions checks which members of a tool are schemas:
// inputSchema and outputSchema only, never _meta, annotations or the tool
// object itself.
func TestAppendToolPositions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, want string
	}{
		{"input and output schemas",
			`{"name":"t","inputSchema":{"type":"object","required":["b","a"]},"outputSchema":{"type":"object","required":["d","c"]}}`,
			`{"inputSchema":{"required":["a","b"],"type":"object"},"name":"t","outputSchema":{"required":["c","d"],"type":"object"}}`},
		{"tool-level keyword spellings are data",
			`{"name":"t","required":["b","a"],"type":["b","a"],"enum":[2,1],"properties":{"p":{"enum":[2,1]}}}`,
			`{"enum":[2,1],"name":"t","properties":{"p":{"enum":[2,1]}},"required":["b","a"],"type":["b","a"]}`},
		{"_meta and annotations are data",
			`{"name":"t","_meta":{"required":["b","a"],"inputSchema":{"required":["b","a"]}},"annotations":{"type":["b","a"]}}`,
			`{"_meta":{"inputSchema":{"required":["b","a"]},"required":["b","a"]},"annotations":{"type":["b","a"]},"name":"t"}`},
		{"icons keep order",
			`{"name":"t","icons":[{"src":"b","sizes":["48x48","16x16"]},{"src":"a"}]}`,
			`{"icons":[{"sizes":["48x48","16x16"],"src":"b"},{"src":"a"}],"name":"t"}`},
		{"null inputSchema", `{"name":"get_me","inputSchema":null}`, `{"inputSchema":null,"name":"get_me"}`},
		{"inputSchema as array", `{"name":"t","inputSchema":[{"required":["b","a"]}]}`, `{"inputSchema":[{"required":["b","a"]}],"name":"t"}`},
		{"not an object", `["b","a"]`, `["b","a"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.tool))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(canon.AppendTool(nil, &v)); got != tt.want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(tt.want, got))
			}
		})
	}
}

func TestAppendToolList(t *testing.T) {
	t.Parallel()
	src := `[{"name":"b"},{"name":"😀"},{"name":"\ufb33"},{"name":"B"},{"name":"a","x":1},{"name":"a","x":2},{"x":3}]`
	root, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tools := make([]*canon.Value, len(root.Items))
	for i := range root.Items {
		tools[i] = &root.Items[i]
	}
	before := append([]*canon.Value(nil), tools...)
	got := string(canon.AppendToolList([]byte("prefix:"), tools))
	// By name in UTF-16 order (😀 before U+FB33), stable for equal names,
	// a tool without a name sorts as "".
	want := "prefix:" + `{"tools":[{"x":3},{"name":"B"},{"name":"a","x":1},{"name":"a","x":2},{"name":"b"},{"name":"😀"},{"name":"` + "\ufb33" + `"}]}`
	if got != want {
		t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(want, got))
	}
	for i := range tools {
		if tools[i] != before[i] {
			t.Fatalf("AppendToolList reordered its input at %d", i)
		}
	}
	if got := string(canon.AppendToolList(nil, nil)); got != `{"tools":[]}` {
		t.Errorf("empty list = %q", got)
	}
}

func TestToolName(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`{"name":"x"}`: "x",
		`{"name":1}`:   "",
		`{}`:           "",
		`"name"`:       "",
	} {
		v, err := canon.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := canon.ToolName(&v); got != want {
			t.Errorf("ToolName(%s) = %q, want %q", src, got, want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	// sha256("") and sha256("{}"), lower-case hex.
	if got, want := canon.Fingerprint(nil), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; got != want {
		t.Errorf("Fingerprint(nil) = %s, want %s", got, want)
	}
	if got, want := canon.Fingerprint([]byte("{}")), "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"; got != want {
		t.Errorf("Fingerprint({}) = %s, want %s", got, want)
	}
}
