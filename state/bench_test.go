package state

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/toolset"
)

// bigContract is a lockfile of n tools, each with a few properties.
func bigContract(b *testing.B, n int, rev string) *lockfile.Lock {
	b.Helper()
	var tools []string
	for i := range n {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%04d","description":"tool %d %s","inputSchema":{"type":"object","properties":{"q":{"type":"string","maxLength":200},"limit":{"type":"integer","minimum":1},"mode":{"enum":["a","b","c"]}},"required":["q"]}}`, i, i, rev))
	}
	lock, err := lockfile.Decode("bench", []byte(`{"tools":[`+strings.Join(tools, ",")+`]}`))
	if err != nil {
		b.Fatal(err)
	}
	return lock
}

// BenchmarkStatePublish measures Publish of a 1,000-tool contract (one
// journal line carrying the contract, fsynced; a checkpoint every 32) and,
// in the same run, two baselines on the contract's lockfile
// bytes: a plain os.WriteFile (no fsync; x-writefile is Publish's time per
// op over it) and one atomic fsynced write, durable.WriteFile
// (x-durable-write) (docs/architecture.md#quality-bar).
func BenchmarkStatePublish(b *testing.B) {
	locks := []*lockfile.Lock{bigContract(b, 1000, "a"), bigContract(b, 1000, "b")}
	st, err := Open(filepath.Join(b.TempDir(), "state"), Options{History: 3})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	fps := []string{locks[0].Set.Fingerprint(), locks[1].Set.Fingerprint()} // serve has its generation's
	i := 0
	for b.Loop() {
		if _, err := st.Publish(Record{Contract: locks[i%2], Fingerprint: fps[i%2], Allowed: Allowance{Kind: AutoSafe}}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	perPublish := b.Elapsed() / time.Duration(b.N)
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, locks[0].Set, nil); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "plain.lock.json")
	rounds := max(b.N, 3)
	for _, base := range []struct {
		metric string
		write  func(string, []byte, os.FileMode) error
	}{{"x-writefile", os.WriteFile}, {"x-durable-write", durable.WriteFile}} {
		start := time.Now()
		for range rounds {
			if err := base.write(path, buf.Bytes(), 0o600); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(perPublish)/float64(time.Since(start)/time.Duration(rounds)), base.metric)
	}
}

// BenchmarkStateOpen measures Open of a state holding a 1,000-tool
// contract (published.json, the contract, the tool memory, usage, the
// journal) and, in the same run, the baseline: reading and decoding the
// same contract as a baseline lockfile (toolset.Decode). x-decode is
// Open's time per op over the baseline's.
func BenchmarkStateOpen(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "state")
	st, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	lock := bigContract(b, 1000, "a")
	if _, err := st.Publish(Record{Contract: lock}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	for b.Loop() {
		s, err := Open(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	perOpen := b.Elapsed() / time.Duration(b.N)
	contract := filepath.Join(dir, contractPath(1))
	rounds := max(b.N, 3)
	start := time.Now()
	for range rounds {
		data, err := os.ReadFile(contract)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := toolset.Decode(contract, data); err != nil {
			b.Fatal(err)
		}
	}
	base := time.Since(start) / time.Duration(rounds)
	b.ReportMetric(float64(perOpen)/float64(base), "x-decode")
}
