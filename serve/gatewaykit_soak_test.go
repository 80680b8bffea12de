package serve

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// TestGatewaySoak: 8 go-sdk clients call echo {"message": …} through the
// gateway while the mutable upstream changes its tool list 100 times —
// tools added and removed, descriptions changed, and echo's message renamed
// to text and back (gate.upstream: auto-facade: translated by the diff's
// verified rename). The
// advertised contract always promises echo {message}, so every call must
// succeed and arrive at the upstream with the text; no goroutine may leak
// (TestMain runs goleak). Half the clients speak 2025-11-25 (the fast
// path takes their calls while the upstream's tools are published as
// they are), half the go-sdk's newest revision (the go-sdk path).
//
// One window is no promise of the gateway's: between an upstream renaming a
// property in place and its list_changed reaching the gateway, a call in
// the old shape reaches the upstream as sent and the upstream refuses it
// (found by this test's first version: "missing property 'text'"). Nobody
// can translate for a change not yet announced; so around each rename the
// clients wait (between calls) until a probe call in the old shape passes
// again. Every other change runs under the clients' calls.
func TestGatewaySoak(t *testing.T) {
	t.Parallel()
	const clients, changes = 8, 100
	u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
	s, _ := startServer(t, `server: {name: gateway-soak, version: 1.0.0}
upstreams:
  - name: m
    http: {url: "http://127.0.0.1:1/unused"}
gate: {upstream: auto-facade}
`, viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		errs   []error
		calls  = make([]int, clients)
		window sync.RWMutex // held by the driver around an in-place rename
	)
	for i := 0; i < clients; i++ {
		rev := ""
		if i%2 == 0 {
			rev = fastTestRevision
		}
		c := gatewayClientAt(t, s, rev)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				window.RLock()
				err := soakCall(ctx, c.cs, i, calls[i])
				window.RUnlock()
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				calls[i]++
			}
		}()
	}
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return len(errs) > 0 }
	probe := gatewayClient(t, s)
	for n := 0; n < changes && !failed(); n++ {
		ch := soakChange(n)
		if ch.Op != upstreamtest.OpRename {
			if err := u.Apply(ch); err != nil {
				t.Fatalf("change %d: %v", n, err)
			}
		} else {
			window.Lock()
			if err := u.Apply(ch); err != nil {
				t.Fatalf("change %d: %v", n, err)
			}
			waitCall(t, fmt.Sprintf("the old shape to pass after change %d", n), func() error { return soakCall(ctx, probe.cs, -1, n) })
			window.Unlock()
		}
		// Calls go on between changes (each client calls after each).
		waitUntil(t, "calls after the change", func() bool { return failed() || u.Calls() > int64(n+1)*clients })
	}
	cancel()
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	for i, n := range calls {
		if n == 0 {
			t.Errorf("client %d made no call", i)
		}
	}
	if s.fastCalls.Load() == 0 {
		t.Error("the fast path took no call")
	}
	t.Logf("%d upstream changes; %d calls forwarded, %d by the fast path", changes, u.Calls(), s.fastCalls.Load())
}

// soakCall calls echo in the shape the gateway advertises and checks the
// upstream received the text, under message or (translated) text.
func soakCall(ctx context.Context, cs *mcp.ClientSession, client, n int) error {
	msg := fmt.Sprintf("soak %d/%d", client, n)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("client %d call %d: %w", client, n, err)
	}
	got := echoed(res)
	if res.IsError || (got["message"] != msg && got["text"] != msg) {
		return fmt.Errorf("client %d call %d failed: isError=%v %s", client, n, res.IsError, resultText(res))
	}
	return nil
}

// soakChange is upstream change n: a cycle of five changes that ends where
// it started except for the description.
func soakChange(n int) upstreamtest.Change {
	extra := fmt.Sprintf("extra_%d", n/5)
	switch n % 5 {
	case 0:
		return upstreamtest.Change{Op: upstreamtest.OpAdd, Def: &mcp.Tool{Name: extra, InputSchema: map[string]any{"type": "object"}}}
	case 1:
		return upstreamtest.Change{Op: upstreamtest.OpRename, Tool: "echo", Old: "message", New: "text"}
	case 2:
		return upstreamtest.Change{Op: upstreamtest.OpDescription, Tool: "count", Text: fmt.Sprintf("Count to n (revision %d).", n)}
	case 3:
		return upstreamtest.Change{Op: upstreamtest.OpRename, Tool: "echo", Old: "text", New: "message"}
	}
	return upstreamtest.Change{Op: upstreamtest.OpRemove, Tool: extra}
}
