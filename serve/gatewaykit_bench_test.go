package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
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
// two variants alternating in rounds so a change in machine load hits
// both. Reported:
//
//	direct-ops/s, gateway-ops/s        throughput
//	gateway/direct-throughput          target ≥ 0.8 (call), ≥ 1.0 (list)
//	direct-p99-µs, gateway-p99-µs      latency
//	added-p99-ms                       gateway p99 − direct p99, target ≤ 1
//	added-p50-µs                       gateway p50 − direct p50
//	direct-cpu-µs/op, gateway-cpu-µs/op process CPU per operation (clients,
//	                                   gateway and upstream are one process)
//	direct/gateway-cpu                 the CPU ratio, the least noisy number
//	                                   on a shared machine
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

// benchVersus runs op through clients direct and clients gateway sessions
// in alternating rounds and reports the ratios.
func benchVersus(b *testing.B, clients int, direct, gateway func(b *testing.B) (*mcp.ClientSession, func()), op func(*mcp.ClientSession) error) {
	const rounds = 5
	n := max(b.N, clients*rounds)
	directS, closeDirect := connectAll(b, direct)
	defer closeDirect()
	gatewayS, closeGateway := connectAll(b, gateway)
	defer closeGateway()
	directS, gatewayS = directS[:clients], gatewayS[:clients]
	var directT, gatewayT, directCPU, gatewayCPU time.Duration
	var directLat, gatewayLat []time.Duration
	for r := 0; r < rounds; r++ {
		c0 := processCPU()
		d, l := runClients(b, directS, n/rounds, op)
		c1 := processCPU()
		directT, directLat, directCPU = directT+d, append(directLat, l...), directCPU+c1-c0
		d, l = runClients(b, gatewayS, n/rounds, op)
		gatewayT, gatewayLat, gatewayCPU = gatewayT+d, append(gatewayLat, l...), gatewayCPU+processCPU()-c1
	}
	slices.Sort(directLat)
	slices.Sort(gatewayLat)
	directTput := float64(len(directLat)) / directT.Seconds()
	gatewayTput := float64(len(gatewayLat)) / gatewayT.Seconds()
	b.ReportMetric(float64(gatewayT.Nanoseconds())/float64(len(gatewayLat)), "ns/op")
	b.ReportMetric(directTput, "direct-ops/s")
	b.ReportMetric(gatewayTput, "gateway-ops/s")
	b.ReportMetric(gatewayTput/directTput, "gateway/direct-throughput")
	b.ReportMetric(pct(directLat, .99), "direct-p99-µs")
	b.ReportMetric(pct(gatewayLat, .99), "gateway-p99-µs")
	b.ReportMetric((pct(gatewayLat, .99)-pct(directLat, .99))/1e3, "added-p99-ms")
	b.ReportMetric(pct(gatewayLat, .50)-pct(directLat, .50), "added-p50-µs")
	// CPU per operation (clients, gateway and upstream share the process):
	// what a loaded machine disturbs least.
	directCPUop := float64(directCPU.Microseconds()) / float64(len(directLat))
	gatewayCPUop := float64(gatewayCPU.Microseconds()) / float64(len(gatewayLat))
	b.ReportMetric(directCPUop, "direct-cpu-µs/op")
	b.ReportMetric(gatewayCPUop, "gateway-cpu-µs/op")
	b.ReportMetric(directCPUop/gatewayCPUop, "direct/gateway-cpu")
}
