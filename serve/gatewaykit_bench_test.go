package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	runtimemetrics "runtime/metrics"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// BenchmarkGateway measures the gateway against the same upstream reached
// directly, in the same run: a mutable upstream (internal/upstreamtest)
// holding the 14 tools of server-filesystem 2026.7.10 (testdata/realdata)
// beside its echo tool, 8 concurrent go-sdk clients (clients=8: throughput
// on a saturated CPU) or one (clients=1: the latency one call adds), the
// two variants alternating in benchRounds rounds so a change in machine
// load hits both. Reported:
//
//	direct-ops/s, gateway-ops/s        throughput
//	gateway/direct-throughput          the median of the rounds' ratios;
//	                                   target ≥ 0.8 (call), ≥ 1.0 (list)
//	gateway/direct-throughput-pooled   all rounds as one
//	gateway/direct-throughput-min      the worst round
//	direct-p99-µs, gateway-p99-µs      latency
//	added-p99-ms                       gateway p99 − direct p99, target ≤ 1
//	added-p50-µs                       gateway p50 − direct p50
//	direct-cpu-µs/op, gateway-cpu-µs/op process CPU per operation (clients,
//	                                   gateway and upstream are one process)
//	direct/gateway-cpu                 the CPU ratio, the least noisy number
//	                                   on a shared machine
//	direct-B/op, gateway-B/op          bytes the process allocated per
//	                                   operation
//	direct-gc/kop, gateway-gc/kop      garbage collections per 1,000
//	                                   operations
//	direct-gc-cpu-µs/op, gateway-…     the collector's CPU per operation
//	                                   (idle mark workers included: they run
//	                                   on a processor the variant leaves idle)
//	host-steal-%                       the share of the machine's CPU time a
//	                                   hypervisor gave other guests during
//	                                   the rounds (Linux): on a shared host
//	                                   it says how far to trust the rest
//
// "inmemory" connects clients and the gateway's upstream over in-memory
// pipes (net.Pipe, framed as stdio: what mcp.NewInMemoryTransports is;
// the gateway's side through its line transport and fast path, as its
// stdio), "http" everything over streamable HTTP on loopback; clients are
// at revision 2025-11-25, and at the go-sdk client's default (2026-07-28,
// whose requests carry the connection in _meta) in
// "inmemory/rev=2026-07-28".
func BenchmarkGateway(b *testing.B) {
	u := benchUpstream(b)
	upURL := upstreamURL(b, u)
	gwMem := benchGateway(b, "http://127.0.0.1:1/unused", viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
	gwHTTP := benchGateway(b, upURL)
	gw := httptest.NewServer(gwHTTP.HTTPHandler(HTTPOptions{}))
	defer gw.Close()
	want := len(u.Tools())
	ops := map[string]func(*mcp.ClientSession) error{
		"list": func(cs *mcp.ClientSession) error {
			res, err := cs.ListTools(context.Background(), nil)
			if err == nil && len(res.Tools) != want {
				err = fmt.Errorf("listed %d tools, want %d", len(res.Tools), want)
			}
			return err
		},
		"call": func(cs *mcp.ClientSession) error {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("call failed: %s", resultText(res))
			}
			return err
		},
	}
	both := []string{"call", "list"}
	transports := []struct {
		name            string
		direct, gateway func(b *testing.B) (*mcp.ClientSession, func())
		ops             []string
	}{
		{"inmemory", inMemory(u.Server()), overStream(gwMem), both},
		{"inmemory/rev=2026-07-28", inMemoryAt(u.Server(), ""), overStreamAt(gwMem, ""), []string{"call"}},
		{"http", overHTTP(upURL), overHTTP(gw.URL), both},
	}
	for _, tr := range transports {
		for _, opName := range tr.ops {
			for _, clients := range []int{benchClients, 1} {
				b.Run(fmt.Sprintf("%s/%s/clients=%d", opName, tr.name, clients), func(b *testing.B) {
					benchVersus(b, clients, tr.direct, tr.gateway, ops[opName])
				})
			}
		}
	}
}

// BenchmarkGatewayFloor measures what any proxy costs here, to read
// BenchmarkGateway's call rows against: a null proxy in the same process,
// which reads nothing of what it passes on. Over in-memory pipes it is
// two goroutines copying lines between the client's pipe and the
// upstream's (no parsing, no validation, no hand-off); over HTTP, the
// standard library's reverse proxy (net/http/httputil, flushing at once,
// as the event streams need). Rows, for T in inmemory and http:
//
//	null-proxy/T/clients=N        "direct" is the upstream reached
//	                              directly, "gateway" the null proxy: what
//	                              the extra hop costs
//	gateway-vs-null/T/clients=N   "direct" is the null proxy, "gateway"
//	                              the gateway: what the gateway's own work
//	                              costs
//
// with BenchmarkGateway's metrics (benchVersus). Clients at 2025-11-25,
// the upstream and its tool as in BenchmarkGateway's "call" rows.
func BenchmarkGatewayFloor(b *testing.B) {
	u := benchUpstream(b)
	gwMem := benchGateway(b, "http://127.0.0.1:1/unused", viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
	upURL := upstreamURL(b, u)
	gw := httptest.NewServer(benchGateway(b, upURL).HTTPHandler(HTTPOptions{}))
	defer gw.Close()
	null := httptest.NewServer(nullHTTPProxy(b, upURL))
	defer null.Close()
	call := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call failed: %s", resultText(res))
		}
		return err
	}
	transports := []struct {
		name                  string
		direct, null, gateway func(b *testing.B) (*mcp.ClientSession, func())
	}{
		{"inmemory", inMemory(u.Server()), nullProxy(u.Server()), overStream(gwMem)},
		{"http", overHTTP(upURL), overHTTP(null.URL), overHTTP(gw.URL)},
	}
	for _, tr := range transports {
		for _, clients := range []int{benchClients, 1} {
			b.Run(fmt.Sprintf("null-proxy/%s/clients=%d", tr.name, clients), func(b *testing.B) {
				benchVersus(b, clients, tr.direct, tr.null, call)
			})
			b.Run(fmt.Sprintf("gateway-vs-null/%s/clients=%d", tr.name, clients), func(b *testing.B) {
				benchVersus(b, clients, tr.null, tr.gateway, call)
			})
		}
	}
}

// nullHTTPProxy passes every request to the upstream at target unread
// (httputil.ReverseProxy), flushing each write at once.
func nullHTTPProxy(b *testing.B, target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		b.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	return p
}

// nullProxy connects a go-sdk client to srv through a proxy that only
// copies lines: client ⇄ net.Pipe ⇄ two copying goroutines ⇄ net.Pipe ⇄
// srv, the pipes as mcp.NewInMemoryTransports's.
func nullProxy(srv *mcp.Server) func(b *testing.B) (*mcp.ClientSession, func()) {
	return func(b *testing.B) (*mcp.ClientSession, func()) {
		c, pc := net.Pipe()
		pu, su := net.Pipe()
		ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: su, Writer: su}, nil)
		if err != nil {
			b.Fatal(err)
		}
		go copyLines(pu, pc)
		go copyLines(pc, pu)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: c, Writer: c}, clientRevision("2025-11-25"))
		if err != nil {
			b.Fatal(err)
		}
		return cs, func() { cs.Close(); ss.Close(); _ = pc.Close(); _ = pu.Close() }
	}
}

// copyLines writes each line of src to dst until either ends.
func copyLines(dst io.Writer, src io.Reader) {
	r := bufio.NewReader(src)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := dst.Write(line); err != nil {
			return
		}
	}
}

// benchGateway is a gateway fronting the upstream at url (or as tweaked).
func benchGateway(b *testing.B, url string, tweak ...func(*testOptions)) *Server {
	o := testOptions{Options: Options{ConfigPath: writeFile(b, b.TempDir(), "gw.yaml", fmt.Sprintf(`server: {name: gateway-bench, version: 1.0.0}
upstreams:
  - name: m
    http: {url: %q}
`, url))}}
	for _, f := range tweak {
		f(&o)
	}
	s, err := newTestServer(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	return s
}

// benchUpstream is the mutable upstream with the realdata tools added.
func benchUpstream(b *testing.B) *upstreamtest.Upstream {
	u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
	for _, raw := range benchTools(b) {
		var t mcp.Tool
		if err := json.Unmarshal(raw, &t); err != nil {
			b.Fatal(err)
		}
		if err := u.Add(&t); err != nil {
			b.Fatal(err)
		}
	}
	return u
}

// benchRounds is how many rounds benchVersus alternates the two variants
// in: each round runs both, in ABBA order (direct first in even rounds,
// the gateway first in odd ones), so that neither always runs right after
// the other's garbage.
const benchRounds = 10

// benchVersus runs op through clients direct and clients gateway sessions
// in alternating rounds and reports the ratios. The throughput ratio is
// the median of the rounds' own ratios (each round's gateway throughput
// over its direct throughput, measured back to back): on a shared machine
// a burst of load lands in a round or two, and a pooled ratio follows it;
// the pooled one (all gateway operations over all their time, against the
// same for direct) is reported beside it as
// gateway/direct-throughput-pooled.
func benchVersus(b *testing.B, clients int, direct, gateway func(b *testing.B) (*mcp.ClientSession, func()), op func(*mcp.ClientSession) error) {
	n := max(b.N, clients*benchRounds)
	directS, closeDirect := connectAll(b, direct)
	defer closeDirect()
	gatewayS, closeGateway := connectAll(b, gateway)
	defer closeGateway()
	sides := [2]*benchSide{{sessions: directS[:clients]}, {sessions: gatewayS[:clients]}}
	ratios := make([]float64, 0, benchRounds)
	for r := 0; r < benchRounds; r++ {
		first := r % 2
		t := [2]float64{}
		for _, i := range []int{first, 1 - first} {
			t[i] = sides[i].round(b, n/benchRounds, op)
		}
		ratios = append(ratios, t[1]/t[0])
	}
	slices.Sort(ratios)
	d, g := sides[0], sides[1]
	slices.Sort(d.lat)
	slices.Sort(g.lat)
	b.ReportMetric(float64(g.elapsed.Nanoseconds())/float64(len(g.lat)), "ns/op")
	b.ReportMetric(d.throughput(), "direct-ops/s")
	b.ReportMetric(g.throughput(), "gateway-ops/s")
	b.ReportMetric(median(ratios), "gateway/direct-throughput")
	b.ReportMetric(g.throughput()/d.throughput(), "gateway/direct-throughput-pooled")
	b.ReportMetric(ratios[0], "gateway/direct-throughput-min")
	b.ReportMetric(pct(d.lat, .99), "direct-p99-µs")
	b.ReportMetric(pct(g.lat, .99), "gateway-p99-µs")
	b.ReportMetric((pct(g.lat, .99)-pct(d.lat, .99))/1e3, "added-p99-ms")
	b.ReportMetric(pct(g.lat, .50)-pct(d.lat, .50), "added-p50-µs")
	// CPU per operation (clients, gateway and upstream share the process):
	// what a loaded machine disturbs least.
	b.ReportMetric(d.cpuPerOp(), "direct-cpu-µs/op")
	b.ReportMetric(g.cpuPerOp(), "gateway-cpu-µs/op")
	b.ReportMetric(d.cpuPerOp()/g.cpuPerOp(), "direct/gateway-cpu")
	b.ReportMetric(float64(d.bytes)/float64(len(d.lat)), "direct-B/op")
	b.ReportMetric(float64(g.bytes)/float64(len(g.lat)), "gateway-B/op")
	b.ReportMetric(d.gcCPU*1e6/float64(len(d.lat)), "direct-gc-cpu-µs/op")
	b.ReportMetric(g.gcCPU*1e6/float64(len(g.lat)), "gateway-gc-cpu-µs/op")
	b.ReportMetric(float64(d.cycles)*1000/float64(len(d.lat)), "direct-gc/kop")
	b.ReportMetric(float64(g.cycles)*1000/float64(len(g.lat)), "gateway-gc/kop")
	if ticks := d.ticks + g.ticks; ticks > 0 {
		b.ReportMetric(100*float64(d.steal+g.steal)/float64(ticks), "host-steal-%")
	}
}

// benchSide is one variant of benchVersus: its sessions and what its
// rounds measured.
type benchSide struct {
	sessions      []*mcp.ClientSession
	elapsed, cpu  time.Duration
	lat           []time.Duration
	bytes, cycles uint64
	gcCPU         float64
	// steal and ticks are the machine's stolen and total CPU ticks
	// (hostCPU) during the rounds.
	steal, ticks uint64
}

// round runs n operations and returns the round's throughput.
func (s *benchSide) round(b *testing.B, n int, op func(*mcp.ClientSession) error) float64 {
	c0 := processCPU()
	st0, t0 := hostCPU()
	a0, g0, gc0 := allocsAndCycles()
	d, l := runClients(b, s.sessions, n, op)
	s.cpu += processCPU() - c0
	st1, t1 := hostCPU()
	s.steal, s.ticks = s.steal+st1-st0, s.ticks+t1-t0
	a1, g1, gc1 := allocsAndCycles()
	s.gcCPU += gc1 - gc0
	s.bytes += a1 - a0
	s.cycles += g1 - g0
	s.elapsed += d
	s.lat = append(s.lat, l...)
	return float64(len(l)) / d.Seconds()
}

// allocsAndCycles are the bytes the process allocated and the GC cycles
// it completed so far.
func allocsAndCycles() (bytes, cycles uint64, gcCPU float64) {
	m := []runtimemetrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	runtimemetrics.Read(m)
	return m[0].Value.Uint64(), m[1].Value.Uint64(), m[2].Value.Float64()
}

func (s *benchSide) throughput() float64 { return float64(len(s.lat)) / s.elapsed.Seconds() }

func (s *benchSide) cpuPerOp() float64 {
	return float64(s.cpu.Microseconds()) / float64(len(s.lat))
}

// median is the middle of sorted values (the mean of the two middle ones
// for an even count).
func median(sorted []float64) float64 {
	m := len(sorted) / 2
	if len(sorted)%2 == 0 {
		return (sorted[m-1] + sorted[m]) / 2
	}
	return sorted[m]
}
