package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/canon"
)

// BenchmarkFastResultNumberCheck: what checking a result's numbers against
// float64's range (beyondFloat64) costs next to the parse the result
// already gets, on a 2,000-number structuredContent. Reported:
// walk/parse, the walk's time over the parse's, both measured in this run.
func BenchmarkFastResultNumberCheck(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"rows":[`)
	for i := range 1000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":%d,"score":%d.25e-3}`, i, i)
	}
	sb.WriteString(`]}}`)
	raw := []byte(sb.String())
	v, err := canon.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	var parse, walk time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := canon.Parse(raw); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if beyondFloat64(&v) {
			b.Fatal("a number beyond float64")
		}
		parse, walk = parse+t1.Sub(t0), walk+time.Since(t1)
	}
	b.ReportMetric(float64(walk)/float64(parse), "walk/parse")
}
