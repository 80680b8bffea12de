// Package configtest holds serve configs that the tests of serveconfig and
// serve both use: a small two-tool config, a YAML alias bomb and a large
// generated config. Only tests import it.
package configtest

import (
	"fmt"
	"strings"
)

// Base is a two-tool config with static handlers.
const Base = `server: {name: docs, version: 1.4.0}
tools:
  - name: search_documents
    description: Keyword search.
    inputSchema:
      type: object
      properties:
        query: {type: string}
        limit: {type: integer, minimum: 1, maximum: 100}
      required: [query]
    handler: {static: {text: found}}
  - name: fetch_document
    inputSchema:
      type: object
      properties:
        id: {type: string}
      required: [id]
    handler: {static: {text: fetched}}
`

// AliasBomb is seven levels of &a [*b,*b,…] (10^7 values from a few
// hundred bytes), one mapping member a line, each line indented by indent;
// leaf is the value at the bottom.
func AliasBomb(indent, leaf string) string {
	var b strings.Builder
	for i := 0; i <= 7; i++ {
		fmt.Fprintf(&b, "%sx-bomb%d: &a%d [", indent, i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			if i == 0 {
				b.WriteString(leaf)
			} else {
				fmt.Fprintf(&b, "*a%d", i-1)
			}
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// ManyTools is a YAML serve config of n distinct tools, each with a
// description, a three-property input schema, an output schema and a
// static handler: the shape of a large generated config.
func ManyTools(n int) string {
	var b strings.Builder
	b.WriteString("server: {name: big, version: 1.0.0}\ntools:\n")
	for i := range n {
		fmt.Fprintf(&b, `  - name: tool_%05d
    description: Tool number %d of a large generated config.
    inputSchema:
      type: object
      properties:
        query: {type: string, description: What to look for, maxLength: %d}
        limit: {type: integer, minimum: 1, maximum: 100}
        mode: {enum: [fast, exact]}
      required: [query]
    outputSchema:
      type: object
      properties:
        count: {type: integer}
    handler: {static: {json: {count: %d}}}
`, i, i, 100+i, i)
	}
	return b.String()
}
