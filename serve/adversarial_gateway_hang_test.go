package serve

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAdversarialGatewayListNeverAnswers: an upstream whose tools/list
// stops answering (after list_changed, and on POST /reload's refresh)
// must not stop calls, nor hold a reload longer than the upstream's
// timeout: the reload ends, the live generation stays.
func TestAdversarialGatewayListNeverAnswers(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	var hang atomic.Bool
	f.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" && hang.Load() {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	s, _ := startGateway(t, gatewayConfig+"    timeout: 1s\n", f)
	cs := connectSDK(t, s, nil)
	v := s.Live().Version
	hang.Store(true)
	f.set("write_file", "Writes.", `{"type":"object"}`) // list_changed: the relist hangs
	if text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"}); isErr {
		t.Errorf("call while tools/list hangs: %s", text)
	}
	res := s.Reload(context.Background(), "admin") // refreshes: hangs until the timeout
	if s.Live().Version != v {
		t.Errorf("reload %s (%s) changed the live generation", res.Result, res.Reason)
	}
	if text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "b"}); isErr {
		t.Errorf("call after the hung reload: %s", text)
	}
	hang.Store(false)
	waitUntil(t, "the change published once tools/list answers", func() bool {
		s.Reload(context.Background(), "admin")
		return s.Live().Set.Lookup("fs_write_file") != nil
	})
}
