package canon_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
)

// benchFile is the largest real discovery document (~209 KB, 100+ tools).
const benchFile = "../testdata/realdata/github-mcp-server/v1.10.1.json"

// canonDocument is what `mcpctl canon` does with a file: parse it strictly and
// encode the canonical form of its tool list.
func canonDocument(dst, data []byte) ([]byte, error) {
	root, err := canon.Parse(data)
	if err != nil {
		return nil, err
	}
	list := root.Get("tools")
	tools := make([]*canon.Value, len(list.Items))
	for i := range list.Items {
		tools[i] = &list.Items[i]
	}
	return canon.AppendToolList(dst, tools), nil
}

// baselineDocument is the plain encoding/json round trip of the same bytes:
// decode into any, encode compactly (maps come out key-sorted).
func baselineDocument(data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// BenchmarkCanon measures canon (Parse + AppendToolList) against the
// encoding/json baseline on the same document in one run, and reports the
// ratio of their times per operation as "x-baseline" (DESIGN §7: lower is
// better, the target is at most 1.5).
func BenchmarkCanon(b *testing.B) {
	data, err := os.ReadFile(benchFile)
	if err != nil {
		b.Fatal(err)
	}
	var baseNs, canonNs float64
	b.Run("baseline", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := baselineDocument(data); err != nil {
				b.Fatal(err)
			}
		}
		baseNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("canon", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			out, err := canonDocument(buf[:0], data)
			if err != nil {
				b.Fatal(err)
			}
			buf = out
		}
		canonNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if baseNs > 0 {
			b.ReportMetric(canonNs/baseNs, "x-baseline")
		}
	})
}
