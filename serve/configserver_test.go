package serve

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/serveconfig"
)

// The config tests that need a generation or a running server; the
// format's own tests are in package serveconfig.

func TestValidationErrorsLocated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `tools:
  - name: ok
    inputSchema: {type: object}
    handler: {static: {text: x}}
  - name: "bad name!"
    inputSchema: {type: object}
    handler: {static: {text: x}}
  - name: arr
    inputSchema: {type: array}
    handler: {static: {text: x}}
  - name: Ok
    inputSchema:
      type: object
      properties:
        n: {type: integer, minimum: "1"}
    handler: {static: {text: x}}
`)
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildGeneration(cfg, buildOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.ReplaceAll(strings.Join(errorLines(err), "\n"), dir+"/", "")
	for _, want := range []string{
		`c.yaml:5:11: tool "bad name!": /name:`,
		`c.yaml:11:11: tool "Ok": /name: name "Ok" differs only in case from tool "ok"`,
		// Issue 9: MCP names are case-sensitive; serve says why it refuses.
		`but serve refuses names equal ignoring case: clients and model APIs that fold case would call the wrong tool (name-case-collision)`,
		`c.yaml:9:25: tool "arr": /inputSchema/type: "inputSchema" has "type": "array"`,
		`c.yaml:15:37: tool "Ok": /inputSchema/properties/n/minimum:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

// TestSpecMembersServedInSourceOrder checks that every member MCP defines
// for a tool is accepted and served as written, in the order written, with
// mcpctl's own members (handler, facade, deprecated) left out wherever they
// stand.
func TestSpecMembersServedInSourceOrder(t *testing.T) {
	t.Parallel()
	config := `server: {name: x}
tools:
  - _meta: {vendor/z: 1, vendor/a: [2, 1]}
    execution: {taskSupport: optional}
    handler: {static: {json: {n: 1}}}
    name: search
    icons: [{src: "https://example.com/i.png", mimeType: image/png, sizes: [48x48]}]
    facade: {rename: {q: query}}
    outputSchema: {type: object, properties: {n: {type: integer}}}
    title: Search
    annotations: {readOnlyHint: true, title: S}
    deprecated: null
    inputSchema: {type: object, properties: {query: {type: string}}}
    description: Finds.
`
	want := `{"_meta":{"vendor/z":1,"vendor/a":[2,1]},"execution":{"taskSupport":"optional"},"name":"search",` +
		`"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"]}],` +
		`"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}},"title":"Search",` +
		`"annotations":{"readOnlyHint":true,"title":"S"},"inputSchema":{"type":"object","properties":{"query":{"type":"string"}}},` +
		`"description":"Finds."}`
	s, path := startServer(t, config)
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, string(cfg.Tools[0].Raw)); d != "" {
		t.Errorf("config bytes mismatch (-want +got):\n%s", d)
	}
	l := connected(t, s).list()
	if len(l.Tools) != 1 {
		t.Fatalf("served %d tools, want 1", len(l.Tools))
	}
	if d := cmp.Diff(want, string(l.Tools[0])); d != "" {
		t.Errorf("served bytes mismatch (-want +got):\n%s", d)
	}
}
