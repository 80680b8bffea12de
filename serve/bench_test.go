package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// Benchmarks of the serving path against a plain go-sdk server holding the
// same tools (Server.AddTool), measured in the same run. Each sub-benchmark
// runs three variants with 8 concurrent go-sdk clients, b.N operations
// each variant and at least minVariant per round: plain (the baseline),
// mcpctl quiet, and mcpctl while 10 generations per second are published
// (the benchmark fails when none was). Reported:
//
//	plain-ops/s, quiet-ops/s, pub-ops/s    throughput
//	pub/plain-throughput                   target ≥ 0.9
//	quiet-p50-µs, quiet-p99-µs, pub-p50-µs, pub-p99-µs, plain-p99-µs
//	pub/quiet-p99                          target ≤ 2 (tools/list)
//	plain-cpu-µs/op, quiet-cpu-µs/op       process CPU per operation
//	plain/quiet-cpu                        ≥ 1: mcpctl costs no more CPU
//
// The tools are the 14 tools of server-filesystem 2026.7.10
// (testdata/realdata), each with a static handler answering an example of
// its outputSchema (the plain server answers the same).

const benchClients = 8

// benchTools reads the realdata tools.
func benchTools(b *testing.B) []json.RawMessage {
	b.Helper()
	data, err := os.ReadFile("../testdata/realdata/server-filesystem/2026.7.10.json")
	if err != nil {
		b.Fatal(err)
	}
	var doc struct{ Tools []json.RawMessage }
	if err := json.Unmarshal(data, &doc); err != nil {
		b.Fatal(err)
	}
	return doc.Tools
}

// benchConfig is a JSON serve config of the tools; rev changes a
// description so every publish changes the canonical form.
func benchConfig(tools []json.RawMessage, rev int) string {
	var sb strings.Builder
	sb.WriteString(`{"server":{"name":"bench","version":"1"},"tools":[`)
	for i, t := range tools {
		if i > 0 {
			sb.WriteByte(',')
		}
		body := strings.TrimSuffix(strings.TrimSpace(string(t)), "}")
		sb.WriteString(body)
		if i == 0 {
			fmt.Fprintf(&sb, `,"_meta":{"rev":%d}`, rev)
		}
		sb.WriteString(`,"handler":{"static":{"json":` + benchOutput(t) + `}}}`)
	}
	sb.WriteString(`]}`)
	return sb.String()
}

// benchOutput is a static result valid under the tool's outputSchema.
func benchOutput(raw json.RawMessage) string {
	v, err := canon.Parse(raw)
	if err != nil {
		panic(err)
	}
	out := v.Get("outputSchema")
	if out == nil {
		return `{"content":"ok"}`
	}
	c, err := schema.Compile(out)
	if err != nil {
		panic(err)
	}
	ex, ok := callcheck.Example(c, out, nil)
	if !ok {
		panic("no example output")
	}
	b, err := json.Marshal(ex)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// plainServer holds the same tools with Server.AddTool.
func plainServer(b *testing.B, tools []json.RawMessage) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "1"}, nil)
	for _, raw := range tools {
		var t mcp.Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			b.Fatal(err)
		}
		out := benchOutput(raw)
		srv.AddTool(&t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}, StructuredContent: json.RawMessage(out)}, nil
		})
	}
	return srv
}

// inMemory connects a go-sdk client to srv over the in-memory transport.
func inMemory(srv *mcp.Server) func(b *testing.B) (*mcp.ClientSession, func()) {
	return inMemoryAt(srv, "2025-11-25")
}

// inMemoryAt is inMemory with the client at revision rev ("": the
// go-sdk client's default, 2026-07-28).
func inMemoryAt(srv *mcp.Server, rev string) func(b *testing.B) (*mcp.ClientSession, func()) {
	return func(b *testing.B) (*mcp.ClientSession, func()) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, clientRevision(rev))
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close(); ss.Close() }
	}
}

// clientRevision are the session options of a client at revision rev
// ("": the go-sdk's default).
func clientRevision(rev string) *mcp.ClientSessionOptions {
	if rev == "" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: rev}
}

// overStream connects a go-sdk client to s over a net.Pipe served by
// Server.ConnectStream (the fast path's line transport): the same bytes as
// mcp.NewInMemoryTransports, which is an IOTransport over a net.Pipe.
func overStream(s *Server) func(b *testing.B) (*mcp.ClientSession, func()) {
	return overStreamAt(s, "2025-11-25")
}

// overStreamAt is overStream with the client at revision rev (as
// inMemoryAt).
func overStreamAt(s *Server, rev string) func(b *testing.B) (*mcp.ClientSession, func()) {
	return func(b *testing.B) (*mcp.ClientSession, func()) {
		c, sc := net.Pipe()
		ss, err := s.ConnectStream(context.Background(), sc)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: c, Writer: c}, clientRevision(rev))
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close(); ss.Close() }
	}
}

// overHTTP connects a go-sdk client over streamable HTTP (stateful) at
// revision 2025-11-25, as inMemory and overStream do.
func overHTTP(url string) func(b *testing.B) (*mcp.ClientSession, func()) {
	return func(b *testing.B) (*mcp.ClientSession, func()) {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close() }
	}
}

// minVariant is the least time one variant runs in one round, whatever
// b.N: long enough for the publisher (every 100 ms) to publish while the
// "pub" variant runs, even at a short -benchtime.
const minVariant = 250 * time.Millisecond

// runClients runs at least n operations split over sessions (one
// goroutine each), and for at least minVariant, and returns the elapsed
// time and the latencies.
func runClients(b *testing.B, sessions []*mcp.ClientSession, n int, op func(*mcp.ClientSession) error) (time.Duration, []time.Duration) {
	lat := make([][]time.Duration, len(sessions))
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	start := time.Now()
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			per := n / len(sessions)
			if i < n%len(sessions) {
				per++
			}
			lat[i] = make([]time.Duration, 0, per)
			for j := 0; j < per || time.Since(start) < minVariant; j++ {
				t0 := time.Now()
				if err := op(sessions[i]); err != nil {
					errMu.Lock()
					firstErr = err
					errMu.Unlock()
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return elapsed, all
}

// connectAll opens benchClients sessions.
func connectAll(b *testing.B, connect func(b *testing.B) (*mcp.ClientSession, func())) ([]*mcp.ClientSession, func()) {
	var sessions []*mcp.ClientSession
	var closers []func()
	for i := 0; i < benchClients; i++ {
		cs, c := connect(b)
		sessions = append(sessions, cs)
		closers = append(closers, c)
	}
	return sessions, func() {
		for _, c := range closers {
			c()
		}
	}
}

func pct(l []time.Duration, p float64) float64 {
	if len(l) == 0 {
		return 0
	}
	i := int(float64(len(l)-1) * p)
	return float64(l[i].Nanoseconds()) / 1e3
}

// benchRev numbers the configs the publishers write (revision 1 is the
// starting config).
var benchRev atomic.Int64

func init() { benchRev.Store(1) }

// publisher publishes a new generation every 100 ms while on is set.
type publisher struct {
	on        atomic.Bool
	published atomic.Int64
	stop      chan struct{}
	wg        sync.WaitGroup
}

func startPublisher(b *testing.B, s *Server, path string, tools []json.RawMessage) *publisher {
	p := &publisher{stop: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				if !p.on.Load() {
					continue
				}
				// Revisions count across sub-benchmarks, so every write
				// differs from the live generation.
				rev := int(benchRev.Add(1))
				if err := os.WriteFile(path, []byte(benchConfig(tools, rev)), 0o644); err != nil {
					b.Error(err)
					return
				}
				if res := s.Reload(context.Background(), "bench"); res.Result != ResultPublished {
					b.Errorf("publish: %s %v", res.Result, res.Errors)
					return
				}
				p.published.Add(1)
			}
		}
	}()
	return p
}

func (p *publisher) close() { close(p.stop); p.wg.Wait() }

func BenchmarkServe(b *testing.B) {
	tools := benchTools(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.serve.json")
	if err := os.WriteFile(path, []byte(benchConfig(tools, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := New(context.Background(), Options{ConfigPath: path})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	plain := plainServer(b, tools)

	plainHTTP := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return plain }, nil))
	defer plainHTTP.Close()
	oursHTTP := httptest.NewServer(s.HTTPHandler(HTTPOptions{}))
	defer oursHTTP.Close()

	ops := map[string]func(*mcp.ClientSession) error{
		"list": func(cs *mcp.ClientSession) error {
			res, err := cs.ListTools(context.Background(), nil)
			if err == nil && len(res.Tools) != len(tools) {
				err = fmt.Errorf("listed %d tools", len(res.Tools))
			}
			return err
		},
		"call": func(cs *mcp.ClientSession) error {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": "/tmp/x"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("call failed: %+v", res.Content[0])
			}
			return err
		},
	}
	transports := []struct {
		name        string
		plain, ours func(b *testing.B) (*mcp.ClientSession, func())
	}{
		{"inmemory", inMemory(plain), inMemory(s.MCPServer())},
		{"http", overHTTP(plainHTTP.URL), overHTTP(oursHTTP.URL)},
	}
	for _, tr := range transports {
		for _, opName := range []string{"list", "call"} {
			op := ops[opName]
			b.Run(opName+"/"+tr.name, func(b *testing.B) {
				// The variants alternate in rounds, so a change in machine
				// load affects all three alike.
				const rounds = 5
				n := max(b.N, benchClients*rounds)
				plainS, closePlain := connectAll(b, tr.plain)
				defer closePlain()
				oursS, closeOurs := connectAll(b, tr.ours)
				defer closeOurs()
				pub := startPublisher(b, s, path, tools)
				defer pub.close()
				var plainT, quietT, pubT time.Duration
				var plainCPU, quietCPU time.Duration
				var plainLat, quietLat, pubLat []time.Duration
				for r := 0; r < rounds; r++ {
					c0 := processCPU()
					d, l := runClients(b, plainS, n/rounds, op)
					c1 := processCPU()
					plainT, plainLat, plainCPU = plainT+d, append(plainLat, l...), plainCPU+c1-c0
					d, l = runClients(b, oursS, n/rounds, op)
					quietT, quietLat, quietCPU = quietT+d, append(quietLat, l...), quietCPU+processCPU()-c1
					pub.on.Store(true)
					d, l = runClients(b, oursS, n/rounds, op)
					pub.on.Store(false)
					pubT, pubLat = pubT+d, append(pubLat, l...)
				}
				if got := pub.published.Load(); got < rounds {
					b.Fatalf("%d publishes during the %d \"pub\" rounds, want at least one per round", got, rounds)
				}
				for _, l := range [][]time.Duration{plainLat, quietLat, pubLat} {
					slices.Sort(l)
				}
				plainTput := float64(len(plainLat)) / plainT.Seconds()
				quietTput := float64(len(quietLat)) / quietT.Seconds()
				pubTput := float64(len(pubLat)) / pubT.Seconds()
				b.ReportMetric(float64(pubT.Nanoseconds())/float64(len(pubLat)), "ns/op")
				b.ReportMetric(plainTput, "plain-ops/s")
				b.ReportMetric(quietTput, "quiet-ops/s")
				b.ReportMetric(pubTput, "pub-ops/s")
				b.ReportMetric(float64(pub.published.Load())/pubT.Seconds(), "publishes/s")
				b.ReportMetric(pubTput/plainTput, "pub/plain-throughput")
				b.ReportMetric(quietTput/plainTput, "quiet/plain-throughput")
				// CPU per operation (clients and server, one process) is
				// what a loaded machine disturbs least.
				plainCPUop := float64(plainCPU.Microseconds()) / float64(len(plainLat))
				quietCPUop := float64(quietCPU.Microseconds()) / float64(len(quietLat))
				b.ReportMetric(plainCPUop, "plain-cpu-µs/op")
				b.ReportMetric(quietCPUop, "quiet-cpu-µs/op")
				b.ReportMetric(plainCPUop/quietCPUop, "plain/quiet-cpu")
				b.ReportMetric(pct(plainLat, .99), "plain-p99-µs")
				b.ReportMetric(pct(quietLat, .50), "quiet-p50-µs")
				b.ReportMetric(pct(quietLat, .99), "quiet-p99-µs")
				b.ReportMetric(pct(pubLat, .50), "pub-p50-µs")
				b.ReportMetric(pct(pubLat, .99), "pub-p99-µs")
				b.ReportMetric(pct(pubLat, .99)/pct(quietLat, .99), "pub/quiet-p99")
			})
		}
	}
}

// BenchmarkReloadLatency measures file written → list_changed received
// over 100 changes with the real watcher (default debounce), reporting
// p50 and p99 minus the debounce.
func BenchmarkReloadLatency(b *testing.B) {
	tools := benchTools(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.serve.json")
	if err := os.WriteFile(path, []byte(benchConfig(tools, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	ready := make(chan struct{})
	o := testOptions{Options: Options{ConfigPath: path}}
	watchReady(ready)(&o)
	s, err := newTestServer(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Watch(ctx) }()
	defer func() { cancel(); <-done }()
	<-ready
	changed := make(chan time.Time, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- time.Now() },
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	changes := 100
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for c := 0; c < changes; c++ {
			t0 := time.Now()
			if err := os.WriteFile(path, []byte(benchConfig(tools, i*changes+c+2)), 0o644); err != nil {
				b.Fatal(err)
			}
			select {
			case t1 := <-changed:
				lat = append(lat, t1.Sub(t0)-s.opts.Debounce)
			case <-time.After(waitLong):
				b.Fatal("no list_changed")
			}
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(pct(lat, .50)/1e3, "p50-ms")
	b.ReportMetric(pct(lat, .99)/1e3, "p99-ms")
}
