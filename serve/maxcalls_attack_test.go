package serve

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// Attacks on Options.MaxCalls: many clients at the bound at once.

// maxCallsGateway starts a gateway in front of an upstreamtest upstream
// with MaxCalls k (and any other tweak).
func maxCallsGateway(t *testing.T, k int, tweak ...func(*testOptions)) (*Server, *upstreamtest.Upstream) {
	t.Helper()
	u := upstreamtest.New(nil, upstreamtest.DefaultTools()...)
	url := upstreamURL(t, u)
	tweak = append([]func(*testOptions){func(o *testOptions) { o.MaxCalls = k }}, tweak...)
	s, _ := startServer(t, "upstreams:\n  - name: web\n    http: {url: '"+url+"'}\n    timeout: 60s\n", tweak...)
	return s, u
}

// holdSlow starts n calls of the upstream's slow tool on cs and waits
// until each reached the upstream; they end when ctx does (ended gets one
// value each).
func holdSlow(ctx context.Context, t *testing.T, cs *mcp.ClientSession, u *upstreamtest.Upstream, n int) <-chan struct{} {
	t.Helper()
	ended := make(chan struct{}, n)
	for range n {
		go func() {
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: upstreamtest.SlowTool, Arguments: map[string]any{}})
			ended <- struct{}{}
		}()
		select {
		case <-u.SlowStarted():
		case <-time.After(waitLong):
			t.Fatal("a slow call never reached the upstream")
		}
	}
	return ended
}

// peakSampler records the highest count of calls in flight (what /status
// and mcpctl_serve_calls_in_flight read) until stop is called.
func peakSampler(s *Server) (stop func() int) {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if n := int64(s.inflight.count()); n > peak.Load() { // what Status and the gauge read
				peak.Store(n)
			}
		}
	}()
	return func() int {
		close(done)
		wg.Wait()
		return int(peak.Load())
	}
}

// TestMaxCallsFloodNeverExceedsTheBound (reproduction: enterCall counted a
// call in flight before comparing with the bound and took it back after,
// so while calls were refused /status and mcpctl_serve_calls_in_flight
// read more than --max-calls, and a call arriving while a refused one was
// counted was refused with a slot free). With MaxCalls 3 and two slow
// calls holding two slots, clients at both revisions (the fast path and
// the go-sdk path) flood echo calls: the calls in flight never exceed 3,
// every busy result a client saw is counted once in refusedAtMax, and
// every other call echoes.
func TestMaxCallsFloodNeverExceedsTheBound(t *testing.T) {
	t.Parallel()
	const k, clients, callsEach = 3, 8, 100
	s, u := maxCallsGateway(t, k)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := holdSlow(ctx, t, streamClient(t, s, fastTestRevision), u, k-1)
	var css []*mcp.ClientSession
	for i := range clients {
		rev := fastTestRevision
		if i%2 == 1 {
			rev = sdkDefaultRevision
		}
		css = append(css, streamClient(t, s, rev))
	}
	stop := peakSampler(s)
	var busy, ok, other atomic.Int64
	var wg sync.WaitGroup
	for _, cs := range css {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range callsEach {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
				switch {
				case err != nil:
					other.Add(1)
				case res.IsError && strings.Contains(res.Content[0].(*mcp.TextContent).Text, "maximum of 3 calls at once"):
					busy.Add(1)
				case !res.IsError:
					ok.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	peak := stop()
	if peak > k {
		t.Errorf("calls in flight peaked at %d, over MaxCalls %d", peak, k)
	}
	if other.Load() != 0 {
		t.Errorf("%d calls neither echoed nor were refused at the bound", other.Load())
	}
	if got := s.Status().RefusedAtMax; got != busy.Load() {
		t.Errorf("refusedAtMax %d, clients saw %d busy results (%d echoed)", got, busy.Load(), ok.Load())
	}
	t.Logf("%d echoed, %d refused, peak %d", ok.Load(), busy.Load(), peak)
	cancel()
	for range k - 1 {
		recvWithin(t, "a cancelled slow call to end", ended)
	}
}
