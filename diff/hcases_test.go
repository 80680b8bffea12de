package diff

import (
	"fmt"
	"testing"
)

// Found by the independent verdict check (hcases): in a draft-07 schema the
// validator mcpctl uses (jsonschema/v6, also in serve and replay) checks a
// "const" beside "$ref" before following the reference, and ignores the
// other siblings. diff dropped them all, so
//
//	{"type":"string"} → {"$ref":"#/definitions/s","const":"only"}
//
// was level none while replay against the new tool set rejects {"a":"x"}.
func TestDraft07RefSiblingsTheValidatorApplies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, target, sibling string
		breaking              bool
	}{
		{"const", `{"type":"string"}`, `"const":"only"`, true},
		{"contains ignored", `{"type":"array"}`, `"contains":{"const":1}`, false},
		{"propertyNames ignored", `{"type":"object"}`, `"propertyNames":{"maxLength":1}`, false},
		{"if then ignored", `{"type":"string"}`, `"if":{"minLength":1},"then":{"maxLength":1}`, false},
		{"minLength ignored", `{"type":"string"}`, `"minLength":3`, false},
	}
	const tool = `{"tools":[{"name":"t","description":"d","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":%s},"definitions":{"s":%s}}}]}`
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := decodeToolSet(t, "old", []byte(fmt.Sprintf(tool, tc.target, tc.target)))
			new := decodeToolSet(t, "new", []byte(fmt.Sprintf(tool, `{"$ref":"#/definitions/s",`+tc.sibling+`}`, tc.target)))
			r := Compare(old, new, Options{Now: fixtureNow})
			checkWitnesses(t, old, new, r)
			if got := r.Level >= Breaking; got != tc.breaking {
				t.Errorf("level %s, want breaking=%v (the validator applies only a const beside $ref)%s", r.Level, tc.breaking, changeSummary(r))
			}
		})
	}
}
