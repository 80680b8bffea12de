package callcheck_test

import (
	"fmt"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

func ExampleCheck() {
	s, _ := canon.Parse([]byte(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"],"additionalProperties":false}`))
	c, _ := schema.Compile(&s)
	args, _ := schema.Decode([]byte(`{"q":"fmt","limit":500}`))
	ok, msg := callcheck.Check(c, &s, args)
	fmt.Println(ok)
	fmt.Println(msg)
	// Output:
	// false
	// invalid arguments:
	// - /limit: got 500, expected an integer from 1 to 100
	// - /q: unexpected property (allowed: query, limit)
	// - /query: missing required property; expected a string
	// example of valid arguments: {"query":"x"}
}
