package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/rule"
	"github.com/mcpctl/mcpctl/toolset"
)

// decodeTools decodes a JSON array of tools into a set.
func decodeTools(t *testing.T, tools string) *toolset.Set {
	t.Helper()
	set, err := toolset.Decode("test", []byte(`{"tools":`+tools+`}`))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return set
}

// keys renders findings as "rule tool pointer" for comparison.
func keys(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Rule + " " + f.Tool + " " + f.Pointer
	}
	return out
}

var (
	long64  = strings.Repeat("a", 64)
	long65  = strings.Repeat("a", 65)
	long128 = strings.Repeat("b", 128)
	long129 = strings.Repeat("b", 129)
)

type ruleCase struct {
	name  string
	rule  string // the rule under test
	fires bool   // whether rule must appear in the findings
	tools string // JSON array of tools
	opts  Options
	want  []string // every finding, as "rule tool pointer", in order
	// msgs are substrings the messages of the findings of rule must contain.
	msgs []string
	// twice lists the first tool a second time, as a set built in code
	// (not decoded, which refuses a repeated name) may.
	twice bool
}

// caseSet returns the tool set of a rule case.
func caseSet(t *testing.T, tc ruleCase) *toolset.Set {
	t.Helper()
	set := decodeTools(t, tc.tools)
	if tc.twice {
		set.Tools = append(set.Tools, set.Tools[0])
	}
	return set
}

var ruleCases = []ruleCase{
	// name-invalid
	{name: "space in name", rule: RuleNameInvalid, fires: true,
		tools: `[{"name":"get user","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-invalid get user /name"},
		msgs:  []string{`" " (U+0020)`, `MCP allows only A-Z a-z 0-9 _ - .`, `e.g. to "get_user"`}},
	{name: "empty name", rule: RuleNameInvalid, fires: true,
		tools: `[{"name":"","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-invalid  /name"},
		msgs:  []string{"name is empty", "1 to 128 characters"}},
	{name: "129 characters", rule: RuleNameInvalid, fires: true,
		tools: `[{"name":"` + long129 + `","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-invalid " + long129 + " /name", "name-too-long " + long129 + " /name"},
		msgs:  []string{"is 129 characters long (MCP allows at most 128)"}},
	{name: "non-ASCII letter", rule: RuleNameInvalid, fires: true,
		tools: `[{"name":"café","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-invalid café /name"},
		msgs:  []string{`"é" (U+00E9)`, `"caf_"`}},
	{name: "128 characters and every allowed character", rule: RuleNameInvalid, fires: false,
		tools: `[{"name":"` + long128 + `","inputSchema":{"type":"object"}},{"name":"aZ09_-.x","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash aZ09_-.x /name", "name-too-long " + long128 + " /name"}},

	// name-duplicate
	{name: "equal names", rule: RuleNameDuplicate, fires: true, twice: true,
		tools: `[{"name":"get_user","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-duplicate get_user /name", "name-duplicate get_user /name"},
		msgs:  []string{"is used by 2 tools", "rename all but one"}},
	// Issue 9: names equal ignoring case were an MCP error, though MCP
	// 2025-11-25 says tool names SHOULD be case-sensitive.
	{name: "names equal ignoring case are not duplicates", rule: RuleNameDuplicate, fires: false,
		tools: `[{"name":"get_user","inputSchema":{"type":"object"}},{"name":"Get_User","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-case-collision Get_User /name", "name-case-collision get_user /name"}},

	// name-case-collision
	{name: "names equal ignoring case", rule: RuleNameCaseCollision, fires: true,
		tools: `[{"name":"get_user","inputSchema":{"type":"object"}},{"name":"Get_User","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-case-collision Get_User /name", "name-case-collision get_user /name"},
		msgs:  []string{"ignoring case", "case-sensitive", "serve refuses them"}},
	{name: "names that differ", rule: RuleNameCaseCollision, fires: false,
		tools: `[{"name":"get_user","inputSchema":{"type":"object"}},{"name":"get_users","inputSchema":{"type":"object"}}]`,
		want:  nil},
	{name: "names that differ", rule: RuleNameDuplicate, fires: false,
		tools: `[{"name":"get_user","inputSchema":{"type":"object"}},{"name":"get_users","inputSchema":{"type":"object"}}]`,
		want:  nil},

	// input-schema-missing
	{name: "inputSchema absent", rule: RuleInputSchemaMissing, fires: true,
		tools: `[{"name":"x"}]`,
		want:  []string{"input-schema-missing x /inputSchema"},
		msgs:  []string{`has no "inputSchema"`, `{"type":"object"}`}},
	{name: "inputSchema null", rule: RuleInputSchemaMissing, fires: true,
		tools: `[{"name":"x","inputSchema":null}]`,
		want:  []string{"input-schema-missing x /inputSchema"},
		msgs:  []string{`is null`, `{"type":"object"}`}},
	{name: "inputSchema present", rule: RuleInputSchemaMissing, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object"}}]`},

	// input-schema-not-object
	{name: "root type string", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"string"}}]`,
		want:  []string{"input-schema-not-object x /inputSchema/type"},
		msgs:  []string{`has "type": "string"`, `requires "type": "object"`}},
	{name: "root type array with null", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":["object","null"]}}]`,
		want:  []string{"input-schema-not-object x /inputSchema/type"},
		msgs:  []string{`has "type": ["object","null"]`}},
	{name: "root type one-element array", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":["object"]}}]`,
		want:  []string{"input-schema-not-object x /inputSchema/type"},
		msgs:  []string{`write "object" without the array`}},
	{name: "root without type", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"properties":{"a":{"type":"string"}}}}]`,
		want:  []string{"input-schema-not-object x /inputSchema"},
		msgs:  []string{`has no "type"; MCP requires "type": "object" at its root: add it`}},
	{name: "root with nothing but $schema", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}]`,
		want:  []string{"input-schema-not-object x /inputSchema"},
		msgs:  []string{`has no "type" and no "properties", so the tool's arguments are undocumented; MCP requires "type": "object" at its root`}},
	{name: "boolean schema", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":true}]`,
		want:  []string{"input-schema-not-object x /inputSchema"},
		msgs:  []string{"is a boolean true, not a JSON object"}},
	{name: "string value", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":"object"}]`,
		want:  []string{"input-schema-not-object x /inputSchema"},
		msgs:  []string{`is a string "object", not a JSON object`}},
	{name: "object schema", rule: RuleInputSchemaNotObject, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]`},

	// output-schema-not-object
	{name: "output type array", rule: RuleOutputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}]`,
		want:  []string{"output-schema-not-object x /outputSchema/type"},
		msgs:  []string{`"outputSchema" has "type": "array"`}},
	{name: "output null", rule: RuleOutputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":null}]`,
		want:  []string{"output-schema-not-object x /outputSchema"},
		msgs:  []string{"omit it"}},
	{name: "output with nothing but $schema", rule: RuleOutputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}]`,
		want:  []string{"output-schema-not-object x /outputSchema"},
		msgs:  []string{`so the tool's results are undocumented`, "the properties the tool returns"}},
	{name: "output absent", rule: RuleOutputSchemaNotObject, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object"}}]`},
	{name: "output object", rule: RuleOutputSchemaNotObject, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}]`},

	// schema-invalid
	{name: "unknown type name", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"strin"}}}}]`,
		want:  []string{"schema-invalid x /inputSchema/properties/a/type"},
		msgs:  []string{"JSON Schema 2020-12 (the default when $schema is absent) at /properties/a/type", "value must be one of 'array'"}},
	{name: "invalid output keyword", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"s":{"minLength":-1}}}}]`,
		want:  []string{"schema-invalid x /outputSchema/properties/s/minLength"},
		msgs:  []string{`"outputSchema" does not compile`, "minimum: got -1, want 0"}},
	{name: "draft-04 metaschema applies", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":[]}}]`,
		want:  []string{"schema-draft x /inputSchema/$schema", "schema-invalid x /inputSchema/required"},
		msgs:  []string{"JSON Schema draft-04 at /required: minItems: got 0, want 1"}},
	{name: "unknown $schema", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":"https://example.com/my-dialect","type":"object"}}]`,
		want:  []string{"schema-draft x /inputSchema/$schema", "schema-invalid x /inputSchema/$schema"},
		msgs:  []string{"names no JSON Schema draft mcpctl knows", "never fetches metaschemas", Draft2020}},
	{name: "bad ref and a separate compile error are both reported", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"},"b":{"maxItems":"3"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$ref", "schema-invalid x /inputSchema/properties/b/maxItems"},
		msgs:  []string{"at /properties/b/maxItems: got string, want integer"}},
	{name: "non-string $schema", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":7,"type":"object"}}]`,
		want:  []string{"schema-invalid x /inputSchema/$schema"}},
	{name: "unknown $schema with a bad ref", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":"urn:example:dialect","type":"object","properties":{"a":{"$ref":"#/nope"}}}}]`,
		want:  []string{"schema-draft x /inputSchema/$schema", "schema-invalid x /inputSchema/$schema", "ref-unresolved x /inputSchema/properties/a/$ref"}},
	{name: "long value excerpt is cut on a character boundary", rule: RuleInputSchemaNotObject, fires: true,
		tools: `[{"name":"x","inputSchema":"` + strings.Repeat("é", 40) + `"}]`,
		want:  []string{"input-schema-not-object x /inputSchema"},
		msgs:  []string{`is a string "` + strings.Repeat("é", 28) + `..., not a JSON object`}},
	{name: "anchor declared three times", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"r":{"$ref":"#a"}},"$defs":{"p":{"$anchor":"a"},"q":{"$anchor":"a"},"r":{"$dynamicAnchor":"a"}}}}]`,
		want:  []string{"schema-invalid x /inputSchema/$defs/q/$anchor", "schema-invalid x /inputSchema/$defs/r/$dynamicAnchor"},
		msgs: []string{`$anchor "a" at /inputSchema/$defs/q repeats the anchor declared at /inputSchema/$defs/p`,
			`$dynamicAnchor "a" at /inputSchema/$defs/r repeats the anchor declared at /inputSchema/$defs/p`}},
	{name: "$id declared twice", rule: RuleSchemaInvalid, fires: true,
		tools: `[{"name":"x","inputSchema":{"$id":"https://x.example/s.json","type":"object","$defs":{"p":{"$id":"t.json"},"q":{"$id":"https://x.example/t.json"},"r":{"$id":"s.json"}}}}]`,
		want:  []string{"schema-invalid x /inputSchema/$defs/q/$id", "schema-invalid x /inputSchema/$defs/r/$id"},
		msgs: []string{`$id "https://x.example/t.json" at /inputSchema/$defs/q identifies the same resource as the schema at /inputSchema/$defs/p`,
			`$id "s.json" at /inputSchema/$defs/r identifies the same resource as the schema at /inputSchema:`}},
	{name: "same anchor name in two resources", rule: RuleSchemaInvalid, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#n"},"b":{"$ref":"sub.json#n"}},"$anchor":"n","$defs":{"s":{"$id":"sub.json","$anchor":"n"}}}}]`},
	{name: "valid schemas", rule: RuleSchemaInvalid, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}},"outputSchema":{"type":"object"}}]`},

	// ref-unresolved
	{name: "missing $defs member", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/nope"}},"$defs":{"one":{},"two":{}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$ref"},
		msgs:  []string{`$ref "#/$defs/nope" does not resolve: no member "nope" in the object at /inputSchema/$defs (members "one", "two")`}},
	{name: "missing anchor", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#addr"}},"$defs":{"a":{"$anchor":"address"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$ref"},
		msgs:  []string{`no "$anchor": "addr" in this schema (its anchors are "address")`}},
	{name: "pointer to a string", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/properties/a/type"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/b/$ref"},
		msgs:  []string{"points to a string at /inputSchema/properties/a/type, not to a schema"}},
	{name: "bad pointer escape", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a~2b"}},"$defs":{"a~2b":{}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$ref"},
		msgs:  []string{`"~" must be followed by 0 or 1 (RFC 6901 §3)`}},
	{name: "array index out of range", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"t":{"prefixItems":[{"type":"string"}]},"u":{"$ref":"#/properties/t/prefixItems/1"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/u/$ref"},
		msgs:  []string{`no item "1" in the array of 1 at /inputSchema/properties/t/prefixItems`}},
	{name: "ref in outputSchema", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}}}}]`,
		want:  []string{"ref-unresolved x /outputSchema/properties/a/$ref"},
		msgs:  []string{`no member "definitions" in the object at /outputSchema`}},
	{name: "unresolved $dynamicRef", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$dynamicRef":"#node"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$dynamicRef"},
		msgs:  []string{`$dynamicRef "#node" does not resolve`, "it has no anchors"}},
	{name: "anchor of another resource", rule: RuleRefUnresolved, fires: true,
		tools: `[{"name":"x","inputSchema":{"$id":"https://x.example/s.json","type":"object","properties":{"a":{"$ref":"sub.json#top"}},"$anchor":"top","$defs":{"s":{"$id":"sub.json","$anchor":"inner"}}}}]`,
		want:  []string{"ref-unresolved x /inputSchema/properties/a/$ref"},
		msgs:  []string{`no "$anchor": "top" in the resource with its own $id at /inputSchema/$defs/s (its anchors are "inner")`}},
	{name: "every local form resolves", rule: RuleRefUnresolved, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{
			"root":{"$ref":"#"},
			"defs":{"$ref":"#/$defs/addr"},
			"slash":{"$ref":"#/$defs/a~1b"},
			"tilde":{"$ref":"#/$defs/c~0d"},
			"space":{"$ref":"#/$defs/e%20f"},
			"anchor":{"$ref":"#street"},
			"item":{"$ref":"#/properties/t/prefixItems/0"},
			"bool":{"$ref":"#/$defs/yes"},
			"dyn":{"$dynamicRef":"#node"},
			"t":{"prefixItems":[{"type":"string"}]}},
			"$defs":{"addr":{"type":"object"},"a/b":{},"c~d":{},"e f":{},"s":{"$anchor":"street"},"n":{"$dynamicAnchor":"node"},"yes":true}}}]`},
	{name: "recursive ref", rule: RuleRefUnresolved, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},
			"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}}]`},

	// ref-not-local
	{name: "relative document", rule: RuleRefNotLocal, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}}]`,
		want:  []string{"ref-not-local x /inputSchema/properties/a/$ref"},
		msgs:  []string{`$ref "other.json#/x" points outside this schema`, "never fetches", `"#/$defs/NAME"`}},
	{name: "absolute URL", rule: RuleRefNotLocal, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}}]`,
		want:  []string{"ref-not-local x /inputSchema/properties/a/$ref"}},
	{name: "other document next to the root $id", rule: RuleRefNotLocal, fires: true,
		tools: `[{"name":"x","inputSchema":{"$id":"https://x.example/s.json","type":"object","properties":{"a":{"$ref":"t.json"}}}}]`,
		want:  []string{"ref-not-local x /inputSchema/properties/a/$ref"}},
	{name: "absolute refs to the schema's own $id resources", rule: RuleRefNotLocal, fires: false,
		tools: `[{"name":"x","inputSchema":{"$id":"https://x.example/s.json","type":"object","properties":{
			"a":{"$ref":"https://x.example/s.json#/$defs/y"},
			"b":{"$ref":"inner.json"},
			"c":{"$ref":"inner.json#/properties/z"},
			"d":{"$ref":"inner.json#deep"}},
			"$defs":{"y":{},"i":{"$id":"inner.json","type":"object","properties":{"z":{"$anchor":"deep"}}}}}}]`},

	// name-too-long
	{name: "65 characters", rule: RuleNameTooLong, fires: true,
		tools: `[{"name":"` + long65 + `","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-too-long " + long65 + " /name"},
		msgs:  []string{"is 65 characters long", "limit function names to 64", `e.g. to "` + long64 + `"`}},
	{name: "64 characters", rule: RuleNameTooLong, fires: false,
		tools: `[{"name":"` + long64 + `","inputSchema":{"type":"object"}}]`},

	// name-dot-or-slash
	{name: "dot", rule: RuleNameDotOrSlash, fires: true,
		tools: `[{"name":"github.get_me","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash github.get_me /name"},
		msgs:  []string{`contains "." (U+002E)`, `e.g. to "github_get_me"`}},
	{name: "slash is also invalid MCP", rule: RuleNameDotOrSlash, fires: true,
		tools: `[{"name":"repo/get","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash repo/get /name", "name-invalid repo/get /name"},
		msgs:  []string{`contains "/" (U+002F)`}},
	{name: "underscore and hyphen", rule: RuleNameDotOrSlash, fires: false,
		tools: `[{"name":"get_me-now","inputSchema":{"type":"object"}}]`},

	// name-sanitized-collision
	{name: "get.user and get_user", rule: RuleNameSanitizedCollision, fires: true,
		tools: `[{"name":"get.user","inputSchema":{"type":"object"}},{"name":"get_user","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash get.user /name", "name-sanitized-collision get.user /name", "name-sanitized-collision get_user /name"},
		msgs:  []string{`name "get.user" becomes "get_user"`, `and so does "get.user"`, `and so does "get_user"`}},
	{name: "differing case after sanitizing", rule: RuleNameSanitizedCollision, fires: true,
		tools: `[{"name":"Get.User","inputSchema":{"type":"object"}},{"name":"get_user","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash Get.User /name", "name-sanitized-collision Get.User /name", "name-sanitized-collision get_user /name"}},
	{name: "distinct after sanitizing", rule: RuleNameSanitizedCollision, fires: false,
		tools: `[{"name":"get.user","inputSchema":{"type":"object"}},{"name":"get_users","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-dot-or-slash get.user /name"}},
	{name: "case collisions are not also sanitized collisions", rule: RuleNameSanitizedCollision, fires: false,
		tools: `[{"name":"a","inputSchema":{"type":"object"}},{"name":"A","inputSchema":{"type":"object"}}]`,
		want:  []string{"name-case-collision A /name", "name-case-collision a /name"}},

	// input-root-combinator
	{name: "root anyOf", rule: RuleInputRootCombinator, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{},"b":{}},"anyOf":[{"required":["a"]},{"required":["b"]}]}}]`,
		want:  []string{"input-root-combinator x /inputSchema/anyOf"},
		msgs:  []string{`"inputSchema" has "anyOf" at its root`}},
	{name: "root oneOf and allOf", rule: RuleInputRootCombinator, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"allOf":[{}]}}]`,
		want:  []string{"input-root-combinator x /inputSchema/allOf", "input-root-combinator x /inputSchema/oneOf"}},
	{name: "nested anyOf and root anyOf in output", rule: RuleInputRootCombinator, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}},
			"outputSchema":{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}}]`},

	// schema-draft
	{name: "draft-07", rule: RuleSchemaDraft, fires: true,
		tools: `[{"name":"x","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}}]`,
		want:  []string{"schema-draft x /inputSchema/$schema"},
		msgs:  []string{`(draft-07)`, `remove "$schema" or set it to "https://json-schema.org/draft/2020-12/schema"`}},
	{name: "2020-12 over http, in outputSchema", rule: RuleSchemaDraft, fires: true,
		tools: `[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"$schema":"http://json-schema.org/draft/2020-12/schema","type":"object"}}]`,
		want:  []string{"schema-draft x /outputSchema/$schema"},
		msgs:  []string{"2020-12 under a non-canonical URI"}},
	{name: "2020-12 and absent", rule: RuleSchemaDraft, fires: false,
		tools: `[{"name":"x","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"},"outputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}},
			{"name":"y","inputSchema":{"type":"object"}}]`},

	// object-open
	{name: "strict: open root and nested objects", rule: RuleObjectOpen, fires: true, opts: Options{Profile: ProfileStrict},
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{
			"o":{"type":"object","properties":{"p":{"type":"string"}},"additionalProperties":false},
			"n":{"type":["object","null"]},
			"l":{"type":"array","items":{"properties":{"q":{}}}},
			"m":{"type":"object","additionalProperties":{"type":"string"}}}}}]`,
		want: []string{
			"object-open x /inputSchema",
			"object-open x /inputSchema/properties/l/items",
			"object-open x /inputSchema/properties/m/additionalProperties",
			"object-open x /inputSchema/properties/n",
		},
		msgs: []string{`object schema at /inputSchema has no "additionalProperties"`, `has "additionalProperties": {"type":"string"}`, `add "additionalProperties": false`}},
	{name: "strict: closed objects, open output", rule: RuleObjectOpen, fires: false, opts: Options{Profile: ProfileStrict},
		tools: `[{"name":"x","inputSchema":{"type":"object","additionalProperties":false,"properties":{"o":{"type":"object","additionalProperties":false}}},
			"outputSchema":{"type":"object"}}]`},
	{name: "default profile: open objects", rule: RuleObjectOpen, fires: false,
		tools: `[{"name":"x","inputSchema":{"type":"object","properties":{"o":{"type":"object"}}}}]`},
}

func TestRuleCases(t *testing.T) {
	t.Parallel()
	for _, tc := range ruleCases {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			set := caseSet(t, tc)
			got := Check(set, tc.opts)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if d := cmp.Diff(want, keys(got)); d != "" {
				t.Errorf("findings mismatch (-want +got):\n%s\nall findings:\n%s", d, render(got))
			}
			fired := false
			var msgs []string
			for _, f := range got {
				if f.Rule == tc.rule {
					fired = true
					msgs = append(msgs, f.Message)
				}
				if f.Severity != ruleSeverity(f.Rule) {
					t.Errorf("%s has severity %s, catalog says %s", f.Rule, f.Severity, ruleSeverity(f.Rule))
				}
			}
			if fired != tc.fires {
				t.Errorf("rule %s fired = %v, want %v", tc.rule, fired, tc.fires)
			}
			all := strings.Join(msgs, "\n")
			for _, m := range tc.msgs {
				if !strings.Contains(all, m) {
					t.Errorf("no %s message contains %q; messages:\n%s", tc.rule, m, all)
				}
			}
		})
	}
}

// TestEveryRuleCovered: each rule of the catalog has a case that triggers it
// and one that does not.
func TestEveryRuleCovered(t *testing.T) {
	t.Parallel()
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range ruleCases {
		if tc.fires {
			fires[tc.rule] = true
		} else {
			quiet[tc.rule] = true
		}
	}
	for _, r := range Rules() {
		if !fires[string(r.ID)] {
			t.Errorf("rule %s has no case that triggers it", r.ID)
		}
		if !quiet[string(r.ID)] {
			t.Errorf("rule %s has no case that does not trigger it", r.ID)
		}
	}
}

func TestRulesCatalog(t *testing.T) {
	t.Parallel()
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !kebab.MatchString(string(r.ID)) {
			t.Errorf("rule id %q is not kebab-case", r.ID)
		}
		if seen[string(r.ID)] {
			t.Errorf("rule id %q declared twice", r.ID)
		}
		seen[string(r.ID)] = true
		if r.Kind != rule.Lint || Severity(r.Level) != SeverityError && Severity(r.Level) != SeverityWarning {
			t.Errorf("rule %s: kind %q, level %q", r.ID, r.Kind, r.Level)
		}
		if r.Profile != "" && r.Profile != ProfileStrict {
			t.Errorf("rule %s: profile %q", r.ID, r.Profile)
		}
		if !strings.HasSuffix(r.Purpose, ".") || strings.Count(r.Purpose, ". ") > 0 {
			t.Errorf("rule %s: purpose is not one sentence: %q", r.ID, r.Purpose)
		}
	}
	// Rules returns a copy: changing it must not change the catalog.
	rs := Rules()
	rs[0].ID = "changed"
	if Rules()[0].ID == "changed" {
		t.Error("Rules returns the catalog itself, not a copy")
	}
}

func render(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintln(&b, f.String())
	}
	return b.String()
}

// TestValidateToolErrorsOnly: ValidateTool returns exactly the per-tool
// errors Check reports, and never a warning.
func TestValidateToolErrorsOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range ruleCases {
		set := caseSet(t, tc)
		var fromCheck []Finding
		for _, f := range Check(set, Options{Profile: ProfileStrict}) {
			if f.Severity == SeverityError && f.Rule != RuleNameDuplicate {
				fromCheck = append(fromCheck, f)
			}
		}
		var fromValidate []Finding
		for _, tool := range set.Tools {
			fromValidate = append(fromValidate, ValidateTool(tool)...)
		}
		if d := cmp.Diff(fromCheck, fromValidate); d != "" {
			t.Errorf("%s: ValidateTool and Check disagree (-check +validate):\n%s", tc.name, d)
		}
	}
}

func TestCheckDeterministicOrder(t *testing.T) {
	t.Parallel()
	tools := `[
		{"name":"b.x","inputSchema":{"type":"string","properties":{"a":{"$ref":"#/nope"}}}},
		{"name":"B_x","inputSchema":null},
		{"name":"a","inputSchema":{"type":"object","anyOf":[{}],"properties":{"z":{"$ref":"x.json"},"y":{"$ref":"#/q"}}}}
	]`
	reversed := `[
		{"name":"a","inputSchema":{"type":"object","anyOf":[{}],"properties":{"z":{"$ref":"x.json"},"y":{"$ref":"#/q"}}}},
		{"name":"B_x","inputSchema":null},
		{"name":"b.x","inputSchema":{"type":"string","properties":{"a":{"$ref":"#/nope"}}}}
	]`
	want := []string{
		"input-schema-missing B_x /inputSchema",
		"name-sanitized-collision B_x /name",
		"input-root-combinator a /inputSchema/anyOf",
		"ref-unresolved a /inputSchema/properties/y/$ref",
		"ref-not-local a /inputSchema/properties/z/$ref",
		"ref-unresolved b.x /inputSchema/properties/a/$ref",
		"input-schema-not-object b.x /inputSchema/type",
		"name-dot-or-slash b.x /name",
		"name-sanitized-collision b.x /name",
	}
	for _, src := range []string{tools, reversed} {
		got := Check(decodeTools(t, src), Options{})
		if d := cmp.Diff(want, keys(got)); d != "" {
			t.Errorf("order mismatch (-want +got):\n%s", d)
		}
	}
	a := Check(decodeTools(t, tools), Options{})
	b := Check(decodeTools(t, reversed), Options{})
	// Positions follow the bytes; everything else must not.
	ignorePos := cmpopts.IgnoreFields(Finding{}, "Line", "Col")
	if d := cmp.Diff(a, b, ignorePos); d != "" {
		t.Errorf("findings depend on input order (-first +second):\n%s", d)
	}
}

func TestFindingJSON(t *testing.T) {
	t.Parallel()
	f := Finding{Severity: SeverityError, Rule: RuleRefUnresolved, Tool: "t", Pointer: "/inputSchema/properties/x/$ref", Message: "m"}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"severity":"error","rule":"ref-unresolved","tool":"t","pointer":"/inputSchema/properties/x/$ref","message":"m"}`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(`error ref-unresolved: tool "t" at /inputSchema/properties/x/$ref: m`, f.String()); d != "" {
		t.Errorf("String mismatch (-want +got):\n%s", d)
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", ProfileDefault, ProfileStrict} {
		if err := (Options{Profile: p}).Validate(); err != nil {
			t.Errorf("profile %q: %v", p, err)
		}
	}
	err := Options{Profile: "stirct"}.Validate()
	if err == nil || !strings.Contains(err.Error(), `"stirct"`) {
		t.Errorf("profile stirct: got %v, want an error naming it", err)
	}
}

func TestValidName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want string // "" = valid
	}{
		{"get_user", ""},
		{"a.b-C_9", ""},
		{long128, ""},
		{"", "name is empty; MCP requires 1 to 128 characters of A-Z a-z 0-9 _ - ."},
		{"a b/c", `name "a b/c" contains " " (U+0020), "/" (U+002F) (MCP allows only A-Z a-z 0-9 _ - .): rename the tool, e.g. to "a_b_c"`},
		{"!@#$%^&", `name "!@#$%^&" contains "!" (U+0021), "@" (U+0040), "#" (U+0023), "$" (U+0024), "%" (U+0025), and 2 more (MCP allows only A-Z a-z 0-9 _ - .): rename the tool, e.g. to "_______"`},
		{long129 + "?", `name "` + long129 + `?" is 130 characters long (MCP allows at most 128) and contains "?" (U+003F) (MCP allows only A-Z a-z 0-9 _ - .): rename the tool, e.g. to "` + long128 + `"`},
	}
	for _, tt := range tests {
		got := ""
		if err := ValidName(tt.name); err != nil {
			got = err.Error()
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ValidName(%q) mismatch (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestCheckNilSet(t *testing.T) {
	t.Parallel()
	if got := Check(nil, Options{}); got != nil {
		t.Errorf("Check(nil) = %v, want nil", got)
	}
}

// TestCheckRepeatable: the same input gives the same findings, message text
// included, however often it is checked (jsonschema v6 iterates maps, so
// compile errors must not leak that order).
func TestCheckRepeatable(t *testing.T) {
	t.Parallel()
	for _, tc := range ruleCases {
		first := Check(caseSet(t, tc), Options{Profile: ProfileStrict})
		for range 20 {
			if d := cmp.Diff(first, Check(caseSet(t, tc), Options{Profile: ProfileStrict})); d != "" {
				t.Fatalf("%s: findings changed between runs (-first +later):\n%s", tc.name, d)
			}
		}
	}
}
