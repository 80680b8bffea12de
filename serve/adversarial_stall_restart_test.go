package serve

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAdversarialStallRestartKeepsServing: an upstream that stops reading
// is restarted once a write it does not take gives up (the stalled call's
// notifications/cancelled), and the gateway goes on serving the same
// contract: the same tool list, no list_changed, /status connected with
// one restart more, calls answered again on both paths.
func TestAdversarialStallRestartKeepsServing(t *testing.T) {
	t.Parallel()
	config := strings.Replace(probeGatewayConfig, "timeout: 2s", "timeout: 200ms", 1)
	eachPathStalling(t, config, func(t *testing.T, s *Server, stall *atomic.Bool) {
		var changed atomic.Int32
		cs := connectSDK(t, s, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) }})
		before, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		call := func() (*mcp.CallToolResult, error) {
			return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "reply", Arguments: map[string]any{}})
		}
		stall.Store(true)
		if res, err := call(); err == nil && !res.IsError {
			t.Fatalf("a call to the stalled upstream succeeded")
		}
		stall.Store(false) // the restarted server reads
		waitUntil(t, "the restart", func() bool {
			st := s.upstreamStatus()[0]
			return st.Restarts >= 1 && st.State == "connected"
		})
		waitCall(t, "a call after the restart", func() error {
			res, err := call()
			if err == nil && res.IsError {
				return errString(resultText(res))
			}
			return err
		})
		after, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Tools) != len(before.Tools) || after.Tools[0].Name != before.Tools[0].Name {
			t.Errorf("tools after the restart: %v, before: %v", after.Tools, before.Tools)
		}
		if n := changed.Load(); n != 0 {
			t.Errorf("%d list_changed for a restart that changed nothing", n)
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }

// TestAdversarialStallServerCloses: closing the gateway while calls are
// stalled writing to an upstream that stopped reading (timeout 60s)
// returns, on both paths.
func TestAdversarialStallServerCloses(t *testing.T) {
	t.Parallel()
	config := strings.Replace(probeGatewayConfig, "timeout: 2s", "timeout: 60s", 1)
	eachPathStalling(t, config, func(t *testing.T, s *Server, stall *atomic.Bool) {
		cs := streamClient(t, s, "2025-11-25")
		stall.Store(true)
		calls := make(chan struct{}, 3)
		for range 3 { // the first is read, the others stall in their writes
			go func() {
				_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "reply", Arguments: map[string]any{}})
				calls <- struct{}{}
			}()
		}
		waitUntil(t, "the calls under way", func() bool { return s.inflight.count() == 3 })
		closed := make(chan struct{})
		go func() {
			s.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(waitLong):
			t.Fatalf("Close did not return in %v with calls stalled (timeout 60s)", waitLong)
		}
	})
}
