package diff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/toolset"
)

// benchSets builds two 1,000-tool sets: 900 tools unchanged but for a
// description, 100 removed (half of them consolidated into "hub_N" tools
// with a method enum) and 100 added.
func benchSets(b *testing.B) (oldDoc, newDoc []byte) {
	b.Helper()
	tool := func(name, desc string, props string, req string) string {
		return fmt.Sprintf(`{"name":%q,"description":%q,"inputSchema":{"type":"object","properties":{%s},"required":[%s]},"annotations":{"readOnlyHint":true}}`, name, desc, props, req)
	}
	common := `"owner":{"type":"string"},"repo":{"type":"string"},"perPage":{"type":"integer","minimum":1,"maximum":100},"state":{"type":"string","enum":["open","closed"]}`
	var o, n []string
	for i := range 900 {
		o = append(o, tool(fmt.Sprintf("tool_%04d", i), "old", common, `"owner","repo"`))
		n = append(n, tool(fmt.Sprintf("tool_%04d", i), "new", common, `"owner","repo"`))
	}
	var methods []string
	for i := range 100 {
		name := fmt.Sprintf("gone_%04d", i)
		o = append(o, tool(name, "gone", common, `"owner","repo"`))
		if i%2 == 0 {
			methods = append(methods, fmt.Sprintf("%q", name))
		}
		n = append(n, tool(fmt.Sprintf("added_%04d", i), "added", `"x":{"type":"string"}`, ``))
	}
	for h := range 5 {
		n = append(n, tool(fmt.Sprintf("hub_%d", h), "hub", `"method":{"type":"string","enum":[`+strings.Join(methods, ",")+`]},"owner":{"type":"string"},"repo":{"type":"string"},"per_page":{"type":"integer"},"state":{"type":"string"}`, `"method","owner","repo"`))
	}
	return []byte(`{"tools":[` + strings.Join(o, ",") + `]}`), []byte(`{"tools":[` + strings.Join(n, ",") + `]}`)
}

// BenchmarkCompare1000 measures Compare on 1,000 tools (tool-level rules
// and route search; schema rules as linked in), against a baseline of
// decoding and re-encoding both documents with encoding/json in the same
// run; compare the two ns/op as a ratio.
func BenchmarkCompare1000(b *testing.B) {
	oldDoc, newDoc := benchSets(b)
	b.Run("baseline-encoding-json", func(b *testing.B) {
		for b.Loop() {
			for _, d := range [][]byte{oldDoc, newDoc} {
				var v any
				if err := json.Unmarshal(d, &v); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	old, err := toolset.Decode("old", oldDoc)
	if err != nil {
		b.Fatal(err)
	}
	new, err := toolset.Decode("new", newDoc)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("compare", func(b *testing.B) {
		for b.Loop() {
			r := Compare(old, new, Options{Now: fixtureNow})
			if r.Counts["facade"] != 50 {
				b.Fatalf("counts %v, want 50 consolidations", r.Counts)
			}
		}
	})
}
