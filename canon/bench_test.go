package canon_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

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

// BenchmarkCanon compares canon (Parse + AppendToolList of the whole
// document) with the encoding/json baseline (Unmarshal into any + Marshal)
// on the same bytes, in one run (docs/architecture.md#quality-bar; the target is a ratio of at most
// 1.5):
//
//   - baseline and canon measure each alone, with MB/s and allocations;
//     canon also reports its time over baseline's as x-baseline;
//   - interleaved runs both in every iteration and reports x-baseline from
//     their summed times, so load on a shared machine hits both alike.
func BenchmarkCanon(b *testing.B) {
	data, err := os.ReadFile(benchFile)
	if err != nil {
		b.Fatal(err)
	}
	var baseNs float64
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
		for b.Loop() {
			if _, err := canonDocument(nil, data); err != nil {
				b.Fatal(err)
			}
		}
		if baseNs > 0 {
			canonNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(canonNs/baseNs, "x-baseline")
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		b.SetBytes(2 * int64(len(data)))
		interleaved(b, func() error {
			_, err := baselineDocument(data)
			return err
		}, func() error {
			_, err := canonDocument(nil, data)
			return err
		})
	})
}

// interleaved runs baseline and canon one after the other in every
// iteration and reports canon's summed time over baseline's as
// x-baseline, so that load on a shared machine hits both alike.
func interleaved(b *testing.B, baseline, canon func() error) {
	var base, can time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := baseline(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := canon(); err != nil {
			b.Fatal(err)
		}
		base += t1.Sub(t0)
		can += time.Since(t1)
	}
	b.ReportMetric(float64(can)/float64(base), "x-baseline")
	b.ReportMetric(float64(base.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(can.Nanoseconds())/float64(b.N), "canon-ns/op")
}

// benchMessage is a JSON-RPC response carrying a tools/call result, as a
// gateway reads one from its upstream for every call.
var benchMessage = []byte(`{"jsonrpc":"2.0","id":"mcpctl-0123456789abcdef-1","result":{"content":[{"type":"text","text":"{\"message\":\"bench\"}"}],"structuredContent":{"message":"bench","nested":{"a":[1,2,{"b":true}]}}}}`)

// BenchmarkParseMessage compares Parse with encoding/json (Unmarshal into
// any) on one small message, each on a goroutine of its own as a
// transport's reader parses: a goroutine starts with a small stack (and the
// garbage collector shrinks the stack of one that waits), so what a parse
// costs includes growing it. Interleaved; x-baseline is canon's time over
// the baseline's.
func BenchmarkParseMessage(b *testing.B) {
	done := make(chan error)
	interleaved(b, func() error {
		go func() {
			var v any
			done <- json.Unmarshal(benchMessage, &v)
		}()
		return <-done
	}, func() error {
		go func() {
			_, err := canon.Parse(benchMessage)
			done <- err
		}()
		return <-done
	})
}

// BenchmarkDeeperThan compares DeeperThan, which a gateway runs on every
// message from an upstream, with json.Valid (encoding/json's cheapest
// full reading) on the same bytes, interleaved: a tools/call response
// (100 at a time, so the clock's cost does not dominate) and the
// discovery document of BenchmarkCanon.
func BenchmarkDeeperThan(b *testing.B) {
	doc, err := os.ReadFile(benchFile)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		reps int
	}{{"message", benchMessage, 100}, {"document", doc, 1}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(2 * int64(len(c.data)*c.reps))
			interleaved(b, func() error {
				for range c.reps {
					if !json.Valid(c.data) {
						return errors.New("invalid")
					}
				}
				return nil
			}, func() error {
				for range c.reps {
					if canon.DeeperThan(c.data, canon.MaxDepth) >= 0 {
						return errors.New("too deep")
					}
				}
				return nil
			})
		})
	}
}
