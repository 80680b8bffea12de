package lint_test

import (
	"fmt"

	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/toolset"
)

func ExampleCheck() {
	doc := []byte(`{"tools":[
		{"name":"get_me","inputSchema":null},
		{"name":"get.user","inputSchema":{"type":"object","properties":{"id":{"$ref":"#/$defs/id"}}}},
		{"name":"get_user","inputSchema":{"type":"object"}}
	]}`)
	set, err := toolset.Decode("tools.json", doc)
	if err != nil {
		fmt.Println(err)
		return
	}
	findings := lint.Check(set, lint.Options{})
	for _, f := range findings {
		fmt.Printf("%s %s %s %s\n", f.Severity, f.Rule, f.Tool, f.Pointer)
	}
	fmt.Println("invalid:", lint.HasErrors(findings))
	fmt.Println(findings[0].Message)
	// Output:
	// error ref-unresolved get.user /inputSchema/properties/id/$ref
	// warning name-dot-or-slash get.user /name
	// warning name-sanitized-collision get.user /name
	// error input-schema-missing get_me /inputSchema
	// warning name-sanitized-collision get_user /name
	// invalid: true
	// $ref "#/$defs/id" does not resolve: no member "$defs" in the object at /inputSchema (members "type", "properties")
}

func ExampleValidateTool() {
	set, _ := toolset.Decode("tools.json", []byte(`[{"name":"search","inputSchema":{"type":"array"}}]`))
	for _, f := range lint.ValidateTool(set.Tools[0]) {
		fmt.Println(f)
	}
	// Output:
	// error input-schema-not-object: tool "search" at /inputSchema/type: "inputSchema" has "type": "array"; MCP requires "type": "object" at its root (tool arguments are always a JSON object)
}
