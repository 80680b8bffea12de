package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/internal/configtest"
	"github.com/mcpctl/mcpctl/internal/cputime"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
)

var manyToolsConfig = configtest.ManyTools

// loadAndBuild parses the config at path and builds a generation from it,
// as a reload does (schemas compiled afresh, as in a new process).
func loadAndBuild(tb testing.TB, path string) *Generation {
	schema.ResetCache()
	cfg, err := serveconfig.LoadConfig(path)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := buildGeneration(cfg, buildOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkConfigLoad measures LoadConfig + buildGeneration of 1,000- and
// 10,000-tool configs against a baseline measured in the same run: decoding
// the same bytes into yaml.v3 nodes (the least any YAML config load does).
// Times are CPU time of the process (user + system, GC included), so that
// a busy machine does not inflate them. Reported:
//
//	load-cpu-ms-1k, load-cpu-ms-10k  one load and build, CPU time
//	load-wall-ms-1k, load-wall-ms-10k  the same, wall time (tools are
//	                                 parsed and checked on every core)
//	load/yaml-1k, load/yaml-10k      against the baseline, per size
//	per-tool-10k/1k                  per-tool cost at 10k over at 1k: ~1
//	                                 when linear (≥10 before: quadratic)
func BenchmarkConfigLoad(b *testing.B) {
	dir := b.TempDir()
	per := map[int]float64{}
	for _, n := range []int{1000, 10000} {
		data := manyToolsConfig(n)
		path := filepath.Join(dir, fmt.Sprintf("c%d.yaml", n))
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
		var base, load, wall time.Duration
		for range b.N {
			t0 := cputime.Process()
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(data), &doc); err != nil {
				b.Fatal(err)
			}
			t1, w := cputime.Process(), time.Now()
			loadAndBuild(b, path).discard()
			base, load, wall = base+t1-t0, load+cputime.Process()-t1, wall+time.Since(w)
		}
		k := fmt.Sprintf("%dk", n/1000)
		b.ReportMetric(float64(load.Milliseconds())/float64(b.N), "load-cpu-ms-"+k)
		b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "load-wall-ms-"+k)
		b.ReportMetric(float64(load)/float64(base), "load/yaml-"+k)
		per[n] = float64(load) / float64(n)
	}
	b.ReportMetric(per[10000]/per[1000], "per-tool-10k/1k")
}

// BenchmarkConfigLoadJSONInclude measures LoadConfig of a tool whose
// inputSchema is a JSON include of 1,000 and of 10,000 properties, each
// value of which is located by line and column. Reported: the CPU time
// per load (include-cpu-ms-1k, include-cpu-ms-10k) and the per-property
// cost at 10k over at 1k, per-prop-10k/1k: ~1 when linear (~10 when each
// value's place was found by scanning the file from its start).
func BenchmarkConfigLoadJSONInclude(b *testing.B) {
	per := map[int]float64{}
	for _, n := range []int{1000, 10000} {
		dir := b.TempDir()
		var s strings.Builder
		s.WriteString("{\n  \"type\": \"object\",\n  \"properties\": {\n")
		for i := range n {
			if i > 0 {
				s.WriteString(",\n")
			}
			fmt.Fprintf(&s, "    \"p%d\": {\"type\": \"string\", \"maxLength\": %d}", i, i)
		}
		s.WriteString("\n  }\n}\n")
		cfg := "tools:\n  - {name: t, inputSchema: {$file: schema.json}, handler: {static: {text: ok}}}\n"
		for name, data := range map[string]string{"c.yaml": cfg, "schema.json": s.String()} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		var load time.Duration
		for range b.N {
			t0 := cputime.Process()
			if _, err := serveconfig.LoadConfig(filepath.Join(dir, "c.yaml")); err != nil {
				b.Fatal(err)
			}
			load += cputime.Process() - t0
		}
		k := fmt.Sprintf("%dk", n/1000)
		b.ReportMetric(float64(load.Microseconds())/1000/float64(b.N), "include-cpu-ms-"+k)
		per[n] = float64(load) / float64(n)
	}
	b.ReportMetric(per[10000]/per[1000], "per-prop-10k/1k")
}
