package diff

import "github.com/mcpctl/mcpctl/canon"

// This file is the seam between the tool-level engine (compare.go) and the
// schema comparison (schemadiff*.go). It is replaced by the real
// implementation; its signatures are the contract.

// schemaPair is one schema comparison: the old and new schema of one tool in
// one direction (Input: old ⊆ new required; Output: new ⊆ old required).
// Old or New may be nil (schema absent). Path is the JSON Pointer prefix of
// findings ("" = the schema root; findings' Path is relative to the schema,
// as in DESIGN §4.8's example "/properties/mode/enum").
type schemaPair struct {
	Tool      string
	Direction Direction
	Old, New  *canon.Value
	Opts      *Options
}

// compareSchemas returns the findings of one schema comparison, each with
// its witness (or NoWitness) already checked by the validator.
func compareSchemas(p schemaPair) []Change { return nil }

// exampleInstance builds a small instance that validates against s (all
// required properties filled, defaults/examples/enum members preferred),
// checked with the validator; ok is false when none could be built.
func exampleInstance(s *canon.Value) (v any, ok bool) { return nil, false }

// schemaRules returns the catalog entries of the schema rules.
func schemaRules() []Rule { return nil }
