package serveconfig_test

import (
	"fmt"

	"github.com/mcpctl/mcpctl/serveconfig"
)

// A tool is served with its members in the order the config wrote them;
// handler, facade and deprecated are serve's own and are not served.
func ExampleParseConfig() {
	cfg, err := serveconfig.ParseConfig("docs.yaml", []byte(`
server: {name: docs, version: 1.4.0}
tools:
  - name: search_documents
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer, default: 20}
      required: [query]
    handler: {exec: {command: [./bin/search], timeout: 10s}}
    facade: {aliases: [search_docs], rename: {q: query}}
gate:
  allow:
    - {tool: legacy_export, reason: retired}
`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	t := cfg.Tools[0]
	fmt.Println(string(t.Raw))
	fmt.Println(t.Handler.Exec.Command, t.Handler.Exec.Timeout, t.Facade.Aliases[0].Name)
	fmt.Println(cfg.Gate.Allow[0].Tool, cfg.Gate.Allow[0].Reason)
	// Output:
	// {"name":"search_documents","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","default":20}},"required":["query"]}}
	// [./bin/search] 10s search_docs
	// legacy_export retired
}
