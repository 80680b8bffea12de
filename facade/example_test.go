package facade_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// An old per-action tool call reaches the consolidated tool: the alias
// routes it, injects the discriminator and renames perPage.
func ExampleApply() {
	doc, _ := schema.Decode([]byte(`{"type":"object","properties":{"method":{"enum":["list_workflows"]},"owner":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner"],"additionalProperties":false}`))
	target, _ := schema.CompileAny(doc)
	f := facade.File{"actions_list": {Aliases: []facade.Alias{{
		Name:   "list_workflows",
		Inject: map[string]any{"method": "list_workflows"},
		Rename: map[string]string{"perPage": "per_page"},
	}}}}
	call := facade.Call{Tool: "list_workflows", Arguments: map[string]any{"owner": "o", "perPage": json.Number("10")}}
	got, steps, err := facade.Apply(f, "actions_list", func(args map[string]any) error { return target.Validate(args) }, call)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(got)
	fmt.Println(string(b))
	fmt.Println(steps)
	// Output:
	// {"tool":"actions_list","arguments":{"method":"list_workflows","owner":"o","per_page":10}}
	// [alias list_workflows -> actions_list inject method rename perPage -> per_page]
}
