package callcheck

import (
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// fuzzSchemas compare numbers in every way jsonschema v6 does: bounds,
// multipleOf, integer type, enum/const equality and uniqueItems hashing.
var fuzzSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"number","minimum":0,"maximum":100}}}`,
	`{"type":"object","properties":{"a":{"exclusiveMinimum":-1,"exclusiveMaximum":1e3,"multipleOf":0.5}}}`,
	`{"type":"object","properties":{"a":{"type":"integer","enum":[1,2,3e2]},"c":{"const":1.5}}}`,
	`{"type":"object","properties":{"l":{"type":"array","uniqueItems":true,"items":{"type":"number"}}},"required":["l"]}`,
	`{"type":"object","additionalProperties":{"anyOf":[{"type":"integer","minimum":1},{"type":"string","maxLength":3}]}}`,
}

// FuzzCallArguments: any arguments a client can send (strict JSON, number
// grammar edge cases such as 1e1000000000, 1E+999999999999, -0.0e-0, long
// digit strings) are validated and answered with a message, never a panic.
func FuzzCallArguments(f *testing.F) {
	for _, n := range []string{"1e1000000000", "-1e1000000000", "1e-1000000000", "1E+999999999999", "0e99999999999999999999", "1e1000000", "-0.0e-0", "123456789012345678901234567890.5", "1.5"} {
		f.Add(`{"a":` + n + `,"c":` + n + `,"l":[` + n + `,` + n + `]}`)
	}
	f.Add(`{"l":[1,1.0,1e0,10e-1]}`)
	f.Add(`[1e1000000000]`)
	f.Add(`1E+999999999999`)
	compiled := make([]*schema.Compiled, len(fuzzSchemas))
	values := make([]canon.Value, len(fuzzSchemas))
	for i, s := range fuzzSchemas {
		v, err := canon.Parse([]byte(s))
		if err != nil {
			f.Fatal(err)
		}
		c, err := schema.Compile(&v)
		if err != nil {
			f.Fatal(err)
		}
		compiled[i], values[i] = c, v
	}
	f.Fuzz(func(t *testing.T, args string) {
		inst, err := schema.Decode([]byte(args))
		if err != nil {
			return
		}
		for i, c := range compiled {
			ok, msg := Check(c, &values[i], inst)
			if ok != (msg == "") || (!ok && !strings.HasPrefix(msg, "invalid arguments:")) {
				t.Fatalf("schema %d: ok %v with message %q", i, ok, msg)
			}
		}
	})
}
