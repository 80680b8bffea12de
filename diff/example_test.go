package diff_test

import (
	"fmt"
	"os"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/toolset"
)

// A per-action tool folded into a consolidated one: Compare names the
// route and suggests the facade that carries old calls, ready to paste into
// a facade file or a serve config's tool entry.
func ExampleCompare_consolidation() {
	old, _ := toolset.Decode("old", []byte(`{"tools":[
	  {"name":"list_workflows","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"perPage":{"type":"integer"}},"required":["owner"]}},
	  {"name":"actions_list","inputSchema":{"type":"object","properties":{"method":{"type":"string","enum":["list_workflows"]},"owner":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner"]}}]}`))
	new, _ := toolset.Decode("new", []byte(`{"tools":[
	  {"name":"actions_list","inputSchema":{"type":"object","properties":{"method":{"type":"string","enum":["list_workflows"]},"owner":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner"]}}]}`))
	r := diff.Compare(old, new, diff.Options{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	c := r.Changes[0]
	fmt.Println(c.Rule, c.Level, c.Tool)
	fmt.Println(c.Message)
	enc := yaml.NewEncoder(os.Stdout)
	enc.SetIndent(2)
	_ = enc.Encode(c.Facade.File())
	// Output:
	// tool-consolidated facade list_workflows
	// consolidated into actions_list (method: list_workflows): old calls work through alias list_workflows on actions_list with inject {method: list_workflows} and rename {perPage -> per_page}
	// actions_list:
	//   aliases:
	//     - name: list_workflows
	//       inject:
	//         method: list_workflows
	//       rename:
	//         perPage: per_page
}
