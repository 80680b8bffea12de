package serve

import (
	"strings"
	"testing"
)

const smokeConfig = `server: {name: docs, version: 1.4.0}
tools:
  - name: search_documents
    title: Search documents
    description: Keyword search over the document store.
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer, minimum: 1, maximum: 100, default: 20}
      required: [query]
    annotations: {readOnlyHint: true}
    handler:
      static: {text: "found nothing"}
`

func TestSmoke(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, smokeConfig)
	c := dialRaw(t, s)
	r := c.initialize(true)
	t.Logf("%s", r.Result)
	l := c.list()
	t.Logf("%s", l.Tools[0])
	res := c.call("tools/call", map[string]any{"name": "search_documents", "arguments": map[string]any{"query": "x"}})
	t.Logf("%s", res.Result)
	res = c.call("tools/call", map[string]any{"name": "search_documents", "arguments": map[string]any{"limit": 500}})
	t.Logf("%s", res.Result)
	res = c.call("tools/call", map[string]any{"name": "search_document"})
	t.Logf("%+v", res.Error)
	if !strings.Contains(string(l.Tools[0]), `"name":"search_documents","title"`) {
		t.Fatal("order")
	}
}
