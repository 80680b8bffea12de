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
func TestGatewayRelaysEveryProgressNotification(t *testing.T) {
	t.Parallel()
	const calls, steps = 20, 5
	u := upstreamtest.New(&upstreamtest.Options{ProgressSteps: steps}, upstreamtest.DefaultTools()...)
	s, _ := startServer(t, "server: {name: progress-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    http: {url: \"http://127.0.0.1:1/unused\"}\n",
		viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
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
	}{{"direct", direct}, {"gateway", gateway}} {
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
