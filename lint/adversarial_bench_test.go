package lint

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/toolset"
)

// manyTools is a tools/list document of n tools that each get one
// finding (schema-draft), as a zod-based server's do.
func manyTools(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"t%d","description":"d","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}`, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BenchmarkAdversarialLintManyTools: locating every finding (issue 10
// item 11) scanned the document from its start once per finding, so
// linting n tools with a finding each took time in n²: 20,000 tools took
// 290 s (`mcpctl lint`). It reports the cost per tool of 4,000 tools
// against 500 in the same run ("ratio-4k/500": about 1 when linear, about
// 8 when quadratic).
func BenchmarkAdversarialLintManyTools(b *testing.B) {
	perTool := func(n int) float64 {
		set, err := toolset.Decode("tools.json", manyTools(n))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if fs := Check(set, Options{}); len(fs) != n {
			b.Fatalf("%d findings, want %d", len(fs), n)
		}
		return float64(time.Since(start)) / float64(n)
	}
	for b.Loop() {
		small, large := perTool(500), perTool(4000)
		b.ReportMetric(large/small, "ratio-4k/500")
		b.ReportMetric(large, "ns/tool-4k")
	}
}
