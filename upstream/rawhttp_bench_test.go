package upstream_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/cputime"
)

// BenchmarkCallRaw compares, in the same run and against the same go-sdk
// streamable HTTP server (SSE and JSON answers), one tools/call through
// Call (the go-sdk client) with the same call through CallRaw, the two
// alternating in rounds. Reported: sdk-cpu-µs/op, raw-cpu-µs/op (process
// CPU: client and server share the process), sdk/raw-cpu, and
// sdk-µs/op, raw-µs/op, sdk/raw-time.
func BenchmarkCallRaw(b *testing.B) {
	for _, mode := range rawModes[:2] {
		b.Run(mode.name, func(b *testing.B) {
			_, u := rawFake(b, mode.opts, nil)
			ctx := context.Background()
			params := json.RawMessage(`{"name":"echo","arguments":{"text":"bench"}}`)
			p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "bench"}}
			variants := [2]func() error{
				func() error { _, err := u.Call(ctx, p, nil); return err },
				func() error { _, err := u.CallRaw(ctx, params); return err },
			}
			cpu, wall := benchRounds(b, variants)
			b.ReportMetric(cpu[0], "sdk-cpu-µs/op")
			b.ReportMetric(cpu[1], "raw-cpu-µs/op")
			b.ReportMetric(cpu[0]/cpu[1], "sdk/raw-cpu")
			b.ReportMetric(wall[0], "sdk-µs/op")
			b.ReportMetric(wall[1], "raw-µs/op")
			b.ReportMetric(wall[0]/wall[1], "sdk/raw-time")
		})
	}
}

// benchRounds runs each variant b.N times in five alternating rounds and
// returns each one's process CPU and wall time per call, in µs.
func benchRounds(b *testing.B, variants [2]func() error) (cpu, wall [2]float64) {
	const rounds = 5
	per := max(b.N/rounds, 1)
	var cpuT, wallT [2]time.Duration
	for range rounds {
		for i, f := range variants {
			c0, w0 := cputime.Process(), time.Now()
			for range per {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
			cpuT[i] += cputime.Process() - c0
			wallT[i] += time.Since(w0)
		}
	}
	n := float64(per * rounds)
	for i := range variants {
		cpu[i] = float64(cpuT[i].Microseconds()) / n
		wall[i] = float64(wallT[i].Microseconds()) / n
	}
	return cpu, wall
}
