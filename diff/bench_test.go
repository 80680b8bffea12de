package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// BenchmarkDiff measures Compare on a real pair (github-mcp-server v1.9.0 →
// v1.10.0) and on a generated 1,000-tool set with one change in every tenth
// tool, as the default gate runs it (DefaultVerify samples per changed
// schema). In the same run it measures the baseline: loading both sides
// (toolset.Decode) and canonicalizing them (Set.Canonical); the metric
// x-load+canon is the diff's time per op over the baseline's, the two
// measured alternately (ratioToBaseline; report ratios, never assert
// wall-clock times).
func BenchmarkDiff(b *testing.B) {
	real := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "realdata", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	genOld, genNew := generatedSets(1000)
	for _, bc := range []struct {
		name     string
		old, new []byte
	}{
		{"github-v1.9.0-v1.10.0", real("github-mcp-server/v1.9.0"), real("github-mcp-server/v1.10.0")},
		{"generated-1000-tools", genOld, genNew},
	} {
		b.Run(bc.name, func(b *testing.B) {
			load := func() (*toolset.Set, *toolset.Set) {
				o, err := toolset.Decode("old", bc.old)
				if err != nil {
					b.Fatal(err)
				}
				n, err := toolset.Decode("new", bc.new)
				if err != nil {
					b.Fatal(err)
				}
				return o, n
			}
			old, new := load()
			ratioToBaseline(b, func() {
				schema.ResetCache()                               // each Compare starts cold, as one mcpctl diff process does
				Compare(old, new, Options{Verify: DefaultVerify}) // the default gate
			}, func() {
				schema.ResetCache()
				o, n := load()
				o.Canonical(false)
				n.Canonical(false)
			})
		})
	}
}

// ratioToBaseline runs diff and base alternately in every iteration, so
// that both see the same machine (a shared machine's load changes from one
// second to the next), and reports diff's time per op over base's as
// x-load+canon, and each one's time as diff-ns/op and baseline-ns/op
// (ns/op is their sum).
func ratioToBaseline(b *testing.B, diff, base func()) {
	b.ReportAllocs()
	var inDiff, inBase time.Duration
	for b.Loop() {
		t0 := time.Now()
		diff()
		t1 := time.Now()
		base()
		inDiff += t1.Sub(t0)
		inBase += time.Since(t1)
	}
	b.ReportMetric(float64(inDiff)/float64(inBase), "x-load+canon")
	b.ReportMetric(float64(inDiff.Nanoseconds())/float64(b.N), "diff-ns/op")
	b.ReportMetric(float64(inBase.Nanoseconds())/float64(b.N), "baseline-ns/op")
}

// generatedSets builds n tools with realistic input and output schemas and
// a copy where every tenth tool has one change, cycling through breaking,
// facade and safe kinds.
func generatedSets(n int) (old, new []byte) {
	tool := func(i int, change int) map[string]any {
		props := map[string]any{
			"owner":   map[string]any{"type": "string", "description": "Repository owner"},
			"repo":    map[string]any{"type": "string", "description": "Repository name"},
			"state":   map[string]any{"type": "string", "enum": []any{"open", "closed", "all"}, "description": "Filter by state"},
			"perPage": map[string]any{"type": "number", "minimum": 1, "maximum": 100},
			"labels":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"options": map[string]any{"type": "object", "properties": map[string]any{
				"draft": map[string]any{"type": "boolean"},
				"body":  map[string]any{"type": "string", "maxLength": 1000},
			}},
		}
		required := []any{"owner", "repo"}
		in := map[string]any{"type": "object", "properties": props, "required": required}
		out := map[string]any{"type": "object", "properties": map[string]any{
			"id":    map[string]any{"type": "integer"},
			"items": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}},
		}, "required": []any{"id"}}
		switch change {
		case 1: // breaking: enum value removed
			props["state"].(map[string]any)["enum"] = []any{"open", "closed"}
		case 2: // safe: optional property added
			props["since"] = map[string]any{"type": "string"}
		case 3: // breaking: minItems raised
			props["labels"].(map[string]any)["minItems"] = 1
		case 4: // safe: description changed
			props["owner"].(map[string]any)["description"] = "The owner"
		case 5: // breaking: required added
			in["required"] = []any{"owner", "repo", "state"}
		case 6: // facade: property renamed
			props["repository"] = props["repo"]
			delete(props, "repo")
			in["required"] = []any{"owner", "repository"}
		case 7: // breaking (output): enum added to an output value
			out["properties"].(map[string]any)["id"] = map[string]any{"type": "number"}
		case 8: // safe: maximum raised
			props["perPage"].(map[string]any)["maximum"] = 200
		case 9: // breaking: nested maxLength lowered
			props["options"].(map[string]any)["properties"].(map[string]any)["body"].(map[string]any)["maxLength"] = 10
		case 10: // safe: output property required
			out["required"] = []any{"id", "items"}
		}
		return map[string]any{"name": fmt.Sprintf("tool_%04d", i), "description": "generated tool", "inputSchema": in, "outputSchema": out}
	}
	var a, b []any
	for i := 0; i < n; i++ {
		a = append(a, tool(i, 0))
		c := 0
		if i%10 == 0 {
			c = i/10%10 + 1
		}
		b = append(b, tool(i, c))
	}
	old, _ = json.Marshal(map[string]any{"tools": a})
	new, _ = json.Marshal(map[string]any{"tools": b})
	return old, new
}

// BenchmarkScale measures Compare on one change in a very wide object
// (1k, 5k and 20k properties) and at the end of a deeply nested schema
// (50 and 200 levels of properties, and 990 levels of array items, the most
// the parser's 1,000-level nesting limit leaves room for). The metric
// x-load+canon is the diff's time per op over loading and canonicalizing
// the same inputs in the same run; comparing it across sizes shows whether
// the cost grows linearly (bench/peers/RESULTS.md has oasdiff's figures on
// the same inputs).
func BenchmarkScale(b *testing.B) {
	for _, bc := range []struct {
		name     string
		old, new []byte
	}{
		{"properties-1k", wideSchema(1000, 10), wideSchema(1000, 5)},
		{"properties-5k", wideSchema(5000, 10), wideSchema(5000, 5)},
		{"properties-20k", wideSchema(20000, 10), wideSchema(20000, 5)},
		{"depth-50", deepSchema(50, false, 10), deepSchema(50, false, 5)},
		{"depth-200", deepSchema(200, false, 10), deepSchema(200, false, 5)},
		{"depth-1000", deepSchema(990, true, 10), deepSchema(990, true, 5)},
	} {
		b.Run(bc.name, func(b *testing.B) { benchPair(b, bc.old, bc.new) })
	}
}

// benchPair times Compare on one pair and reports it over the load+canon
// baseline.
func benchPair(b *testing.B, oldData, newData []byte) {
	load := func() (*toolset.Set, *toolset.Set) {
		o, err := toolset.Decode("old", oldData)
		if err != nil {
			b.Fatal(err)
		}
		n, err := toolset.Decode("new", newData)
		if err != nil {
			b.Fatal(err)
		}
		return o, n
	}
	old, new := load()
	ratioToBaseline(b, func() {
		schema.ResetCache()
		Compare(old, new, Options{Verify: DefaultVerify})
	}, func() {
		o, n := load()
		o.Canonical(false)
		n.Canonical(false)
	})
}

// wideSchema is one tool whose input object has n string properties; the
// first one's maxLength is maxLen.
func wideSchema(n, maxLen int) []byte {
	var s strings.Builder
	fmt.Fprintf(&s, `{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"p0":{"type":"string","maxLength":%d}`, maxLen)
	for i := 1; i < n; i++ {
		fmt.Fprintf(&s, `,"p%d":{"type":"string","maxLength":10}`, i)
	}
	s.WriteString(`}}}]}`)
	return []byte(s.String())
}

// deepSchema is one tool whose input nests depth levels, through a
// property "a" of objects or (items) through arrays below property "a",
// down to a string with maxLength maxLen.
func deepSchema(depth int, items bool, maxLen int) []byte {
	open, close := `{"type":"object","properties":{"a":`, `}}`
	if items {
		open, close = `{"type":"array","items":`, `}`
	}
	inner := fmt.Sprintf(`{"type":"string","maxLength":%d}`, maxLen)
	body := strings.Repeat(open, depth) + inner + strings.Repeat(close, depth)
	if items {
		body = `{"type":"object","properties":{"a":` + body + `}}`
	}
	return []byte(`{"tools":[{"name":"t","description":"d","inputSchema":` + body + `}]}`)
}
