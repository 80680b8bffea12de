package diff

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// BenchmarkDiff measures Compare on a real pair (github-mcp-server v1.9.0 →
// v1.10.0) and on a generated 1,000-tool set with one change in every tenth
// tool. In the same run it measures the baseline: loading both sides
// (toolset.Decode) and canonicalizing them (Set.Canonical); the metric
// x-load+canon is the diff's time per op over the baseline's (docs/architecture.md#quality-bar:
// report ratios, never assert wall-clock times).
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
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				schema.ResetCache() // each Compare starts cold, as one mcpctl diff process does
				Compare(old, new, Options{})
			}
			b.StopTimer()
			perDiff := b.Elapsed() / time.Duration(b.N)
			// Baseline, same process, same data.
			rounds := max(b.N, 3)
			start := time.Now()
			for i := 0; i < rounds; i++ {
				schema.ResetCache()
				o, n := load()
				o.Canonical(false)
				n.Canonical(false)
			}
			perBase := time.Since(start) / time.Duration(rounds)
			b.ReportMetric(float64(perDiff)/float64(perBase), "x-load+canon")
			b.ReportMetric(float64(perBase.Nanoseconds()), "baseline-ns/op")
		})
	}
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
