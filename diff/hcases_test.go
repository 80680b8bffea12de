package diff

import (
	"fmt"
	"testing"
)

// Found by the independent verdict check (hcases): in a draft-07 schema the
// validator mcpctl uses (jsonschema/v6, also in serve and replay) ignores
// the draft-04 keywords beside "$ref" but still applies the draft-06 and
// draft-07 ones (const, contains, propertyNames, if/then/else), and ajv 8
// applies every sibling. diff dropped them all, so
//
//	{"type":"string"} → {"$ref":"#/definitions/s","const":"only"}
//
// was level none while replay against the new tool set rejects {"a":"x"}.
func TestDraft07RefSiblingsTheValidatorApplies(t *testing.T) {
	const draft07 = `"$schema":"http://json-schema.org/draft-07/schema#"`
	cases := []struct{ name, sibling, witness string }{
		{"const", `"const":"only"`, `{"a":"x"}`},
		{"contains", `"contains":{"const":1}`, `{"a":[]}`},
		{"propertyNames", `"propertyNames":{"maxLength":1}`, `{"a":{"xx":1}}`},
		{"if then", `"if":{"minLength":1},"then":{"maxLength":1}`, `{"a":"xx"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target := `{"type":"string"}`
			if tc.name == "contains" {
				target = `{"type":"array"}`
			} else if tc.name == "propertyNames" {
				target = `{"type":"object"}`
			}
			old := decodeToolSet(t, "old", []byte(fmt.Sprintf(
				`{"tools":[{"name":"t","description":"d","inputSchema":{%s,"type":"object","properties":{"a":%s}}}]}`,
				draft07, target)))
			new := decodeToolSet(t, "new", []byte(fmt.Sprintf(
				`{"tools":[{"name":"t","description":"d","inputSchema":{%s,"type":"object","properties":{"a":{"$ref":"#/definitions/s",%s}},"definitions":{"s":%s}}}]}`,
				draft07, tc.sibling, target)))
			r := Compare(old, new, Options{Now: fixtureNow})
			checkWitnesses(t, old, new, r)
			if r.Level < Breaking {
				t.Errorf("level %s, want breaking (old accepts %s, the new validator rejects it)%s", r.Level, tc.witness, changeSummary(r))
			}
		})
	}
}
