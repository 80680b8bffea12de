package serve

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// TestGatewayRelaysEveryProgressNotification: 20 calls with a progress
// token, each answered by the upstream after 5 progress notifications,
// must bring the client 100 notifications through the gateway, as they do
// directly. Reproduction: through the gateway 14 of 100 arrived (in
// memory; 40 of 100 over HTTP, and the TypeScript SDK client saw 1 of 3
// per call), because the relay forgets a call's token when the upstream's
// result arrives, and the go-sdk client hands notifications to their
// handler asynchronously, so those still queued then are dropped.
//
// The "over HTTP" variants reproduce the second report: a client of the
// gateway over streamable HTTP (stateful) got about 46 of 100, because the
// go-sdk client hands the upstream's notifications/progress to its handler
// after the CallTool response may already have returned, so the gateway
// relayed them after it had answered and the request's SSE stream was
// closed.
func TestGatewayRelaysEveryProgressNotification(t *testing.T) {
	t.Parallel()
	const calls, steps = 20, 5
	u := upstreamtest.New(&upstreamtest.Options{ProgressSteps: steps}, upstreamtest.DefaultTools()...)
	s, _ := startServer(t, "server: {name: progress-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    http: {url: \"http://127.0.0.1:1/unused\"}\n",
		viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
	viaHTTP, _ := startServer(t, "server: {name: progress-gw-http, version: 1.0.0}\nupstreams:\n  - name: m\n    http: {url: \""+upstreamURL(t, u)+"\"}\n")
	overHTTP := func(s *Server) func(*mcp.Client) (*mcp.ClientSession, error) {
		hs := httpServer(t, s, HTTPOptions{})
		return func(c *mcp.Client) (*mcp.ClientSession, error) {
			return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
		}
	}
	direct := func(c *mcp.Client) (*mcp.ClientSession, error) { return u.Connect(context.Background(), c) }
	gateway := func(c *mcp.Client) (*mcp.ClientSession, error) {
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = ss.Close() })
		return c.Connect(context.Background(), ct, nil)
	}
	for _, v := range []struct {
		name    string
		connect func(*mcp.Client) (*mcp.ClientSession, error)
	}{{"direct", direct}, {"gateway", gateway}, {"gateway over HTTP", overHTTP(s)}, {"gateway over HTTP to an HTTP upstream", overHTTP(viaHTTP)}} {
		var got atomic.Int64
		cs, err := v.connect(mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { got.Add(1) },
		}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		for i := 0; i < calls; i++ {
			p := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": i}}
			p.SetProgressToken(fmt.Sprintf("%s-%d", v.name, i))
			if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
				t.Fatalf("%s call %d: %v %s", v.name, i, err, resultText(res))
			}
		}
		waitCall(t, "every progress notification "+v.name, func() error {
			if n := got.Load(); n != calls*steps {
				return fmt.Errorf("%d of %d arrived", n, calls*steps)
			}
			return nil
		})
	}
}
