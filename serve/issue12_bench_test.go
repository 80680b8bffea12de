package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/state"
)

// i12Tools is a config of n tools; rev changes every description (a safe
// change, so each reload publishes).
func i12Tools(n int, rev string) string {
	var b strings.Builder
	b.WriteString("tools:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: tool_%04d\n    description: tool %d %s\n    inputSchema: {type: object, properties: {q: {type: string, maxLength: 200}, limit: {type: integer, minimum: 1}}, required: [q]}\n    handler: {static: {text: ok}}\n", i, i, rev)
	}
	return b.String()
}

// BenchmarkIssue12PublishWithState: publish latency (a whole reload of a
// 100-tool config that changed) with --state against without, in the
// same run: state/plain.
func BenchmarkIssue12PublishWithState(b *testing.B) {
	run := func(withState bool) time.Duration {
		dir := b.TempDir()
		cfg := writeFile(b, dir, "cfg.yaml", i12Tools(100, "a"))
		opts := Options{ConfigPath: cfg}
		if withState {
			st, err := state.Open(filepath.Join(b.TempDir(), "st"), state.Options{History: 16})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			opts.State = st
		}
		s, err := New(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		configs := []string{i12Tools(100, "b"), i12Tools(100, "a")}
		var total time.Duration
		for i := range b.N {
			writeFile(b, dir, "cfg.yaml", configs[i%2])
			start := time.Now()
			if res := s.Reload(context.Background(), "bench"); res.Result != ResultPublished {
				b.Fatalf("reload: %s", res.Result)
			}
			total += time.Since(start)
		}
		return total / time.Duration(b.N)
	}
	plain := run(false)
	b.ResetTimer()
	withState := run(true)
	b.StopTimer()
	fsync := durableWrite(b)
	b.ReportMetric(float64(withState.Microseconds())/1e3, "state-ms/publish")
	b.ReportMetric(float64(plain.Microseconds())/1e3, "plain-ms/publish")
	b.ReportMetric(float64(withState)/float64(plain), "state/plain")
	// What --state adds, in durable writes of a small file (write, fsync,
	// rename, fsync of the folder) measured in this run.
	b.ReportMetric(float64(withState-plain)/float64(fsync), "added/durable-write")
}

// durableWrite is the mean time of one durable.WriteFile of a small file.
func durableWrite(b *testing.B) time.Duration {
	path := filepath.Join(b.TempDir(), "f")
	const rounds = 20
	t0 := time.Now()
	for range rounds {
		if err := durable.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(t0) / rounds
}

// BenchmarkIssue12StartupBaseline: start-up (New) of a 1,000-tool config
// gated against a 1,000-tool gate.baseline, against the same start-up
// without a baseline, in the same run: baseline/plain.
func BenchmarkIssue12StartupBaseline(b *testing.B) {
	dir := b.TempDir()
	plainCfg := writeFile(b, dir, "plain.yaml", i12Tools(1000, "a"))
	writeLock(b, plainCfg, filepath.Join(dir, "tools.lock.json"))
	gatedCfg := writeFile(b, dir, "gated.yaml", i12Tools(1000, "b")+"gate: {baseline: tools.lock.json}\n")
	start := func(cfg string) time.Duration {
		t0 := time.Now()
		s, err := New(context.Background(), Options{ConfigPath: cfg})
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		s.Close()
		return d
	}
	var plain, gated time.Duration
	for b.Loop() {
		plain += start(plainCfg)
		gated += start(gatedCfg)
	}
	b.ReportMetric(float64(gated.Microseconds())/1e3/float64(b.N), "baseline-ms/start")
	b.ReportMetric(float64(plain.Microseconds())/1e3/float64(b.N), "plain-ms/start")
	b.ReportMetric(float64(gated)/float64(plain), "baseline/plain")
}
