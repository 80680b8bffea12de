package schema

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
)

func TestCompileError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		schema  string
		wantErr bool
		pointer string
		reason  string
	}{
		{name: "valid 2020-12", schema: `{"type":"object","properties":{"a":{"type":"string"}}}`},
		{name: "valid draft-07 with definitions and tuple items",
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
			"properties":{"a":{"$ref":"#/definitions/x"},"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},
			"definitions":{"x":{"type":"string"}}}`},
		{name: "bad type name", schema: `{"type":"object","properties":{"a":{"type":"strin"}}}`, wantErr: true,
			pointer: "/properties/a/type",
			reason:  "got string, want array; value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'"},
		{name: "two problems at one depth: the first by pointer", schema: `{"$schema":"json-schema.org/draft-04/schema","required":[]}`, wantErr: true,
			pointer: "/$schema", reason: "'json-schema.org/draft-04/schema' is not valid uri: relative url"},
		{name: "negative minLength", schema: `{"type":"object","properties":{"a~b/c":{"minLength":-1}}}`, wantErr: true,
			pointer: "/properties/a~0b~1c/minLength", reason: "minimum: got -1, want 0"},
		{name: "draft-04 empty required", schema: `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":[]}`, wantErr: true,
			pointer: "/required", reason: "minItems: got 0, want 1"},
		{name: "unresolved pointer has no location", schema: `{"properties":{"a":{"$ref":"#/$defs/nope"}}}`, wantErr: true,
			pointer: "", reason: `json-pointer in "#/$defs/nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Compile(&v)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				return
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile error %v (%T) is not a *CompileError", err, err)
			}
			type loc struct{ Pointer, Reason string }
			if d := cmp.Diff(loc{tt.pointer, tt.reason}, loc{ce.Pointer, ce.Reason}); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
			if ce.Unwrap() == nil {
				t.Error("CompileError does not wrap the jsonschema error")
			}
		})
	}
}

// Compiling the same document twice returns the cached validator; another
// spelling of the members (key order) is the same document.
func TestCompileCache(t *testing.T) {
	t.Parallel()
	a, err := canon.Parse([]byte(`{"type":"object","properties":{"cacheprobe":{"type":"string"}},"required":["cacheprobe"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := canon.Parse([]byte(`{"required":["cacheprobe"],"properties":{"cacheprobe":{"type":"string"}},"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := Compile(&a)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Compile(&b)
	if err != nil {
		t.Fatal(err)
	}
	if ca != cb {
		t.Error("the same document compiled twice")
	}
	if ca.Valid(map[string]any{}) || !ca.Valid(map[string]any{"cacheprobe": "x"}) {
		t.Error("cached validator validates wrongly")
	}
	bad, err := canon.Parse([]byte(`{"type":"objekt"}`))
	if err != nil {
		t.Fatal(err)
	}
	_, e1 := Compile(&bad)
	_, e2 := Compile(&bad)
	if e1 == nil || e1 != e2 {
		t.Errorf("compile errors not cached: %v, %v", e1, e2)
	}
}
