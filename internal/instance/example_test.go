package instance_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/schema"
)

// TestInstanceExamples: Examples returns instances the validator accepts,
// the first one as expected, for schemas each former generator got wrong
// (issue 11): callcheck's had nothing for a pattern or unique integers;
// diff's returned a default that an allOf branch rejects and dropped
// patterns that do not merge.
func TestInstanceExamples(t *testing.T) {
	t.Parallel()
	tests := []struct{ schema, want string }{
		{`{"type":"string","pattern":"^[A-Z]{3}-[0-9]+$"}`, `"AAA-0"`},
		{`{"type":"number","multipleOf":0.25,"minimum":0.3}`, `1`},
		{`{"type":"array","items":{"type":"integer"},"uniqueItems":true,"minItems":3}`, `[0,1,-1]`},
		{`{"type":"integer","minimum":100000000000000000000000}`, `100000000000000000000000`},
		{`{"type":"string","format":"date","minLength":10}`, `"2024-01-01"`},
		{`{"type":"string","default":"ab","pattern":"^a","allOf":[{"pattern":"b$"},{"pattern":"c"}]}`, `"acb"`},
		{`{"const":{"k":[1,2]}}`, `{"k":[1,2]}`},
	}
	for _, tt := range tests {
		s, err := canon.Parse([]byte(tt.schema))
		if err != nil {
			t.Fatal(err)
		}
		c, err := schema.Compile(&s)
		if err != nil {
			t.Fatal(err)
		}
		ex := instance.Examples(c, &s, nil, 3)
		if len(ex) == 0 {
			t.Errorf("%s: no example", tt.schema)
			continue
		}
		for _, e := range ex {
			if err := c.Validate(e); err != nil {
				t.Errorf("%s: %v does not validate: %v", tt.schema, e, err)
			}
		}
		if got := encode(t, ex[0]); got != tt.want {
			t.Errorf("%s: first example %s, want %s", tt.schema, got, tt.want)
		}
	}
}

// TestInstanceExamplesNone: a schema that accepts nothing gets no example.
func TestInstanceExamplesNone(t *testing.T) {
	t.Parallel()
	s, _ := canon.Parse([]byte(`{"type":"string","minLength":3,"maxLength":2}`))
	c, err := schema.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	if ex := instance.Examples(c, &s, nil, 1); len(ex) != 0 {
		t.Errorf("got %v for a schema that accepts nothing", ex)
	}
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
