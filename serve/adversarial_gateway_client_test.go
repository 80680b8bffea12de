package serve

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAdversarialGatewayProgressTokenCollision: two sessions use the same
// progressToken for concurrent calls to the same upstream; each must get
// exactly its own calls' progress, never the other's.
func TestAdversarialGatewayProgressTokenCollision(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	const calls = 20
	var got [2]atomic.Int64
	var foreign atomic.Int64
	var sessions [2]*mcp.ClientSession
	for i := range sessions {
		sessions[i] = connectSDK(t, s, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken != "same" {
				foreign.Add(1)
			}
			got[i].Add(1)
		}})
	}
	var wg sync.WaitGroup
	for i, cs := range sessions {
		for n := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": fmt.Sprintf("s%d-%d", i, n)}}
				p.SetProgressToken("same")
				if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
					t.Errorf("call: %v", err)
				}
			}()
		}
	}
	wg.Wait()
	waitUntil(t, "every call's progress", func() bool { return got[0].Load() >= calls && got[1].Load() >= calls })
	if a, b := got[0].Load(), got[1].Load(); a != calls || b != calls || foreign.Load() != 0 {
		t.Errorf("progress per session %d, %d (foreign tokens %d), want %d each", a, b, foreign.Load(), calls)
	}
}

// TestAdversarialGatewayListChangedStorm: an upstream that sends
// notifications/tools/list_changed in a storm (10,000 with an unchanged
// list) starts no reload and tells no client anything; calls keep working
// through it.
func TestAdversarialGatewayListChangedStorm(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	r := newReloads()
	s, _ := startGateway(t, gatewayConfig, f, r.hook)
	var told atomic.Int64
	cs := connectSDK(t, s, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { told.Add(1) }})
	v := s.Live().Version
	for range 10000 {
		f.set("read_file", "Reads a file.", fakeReadFile) // unchanged: list_changed all the same
	}
	if text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"}); isErr {
		t.Errorf("call during the storm: %s", text)
	}
	// A real change after the storm is published once.
	f.set("write_file", "Writes.", `{"type":"object"}`)
	r.waitFor(t, "the real change", func(res ReloadResult) bool { return res.Trigger == "upstream:files" && res.Result == ResultPublished })
	settle(t, s)
	r.mu.Lock()
	n := len(r.all)
	r.mu.Unlock()
	if n != 2 || s.Live().Version != v+1 {
		t.Errorf("%d reloads (version %d → %d), want the start's and the real change's", n, v, s.Live().Version)
	}
	waitUntil(t, "list_changed", func() bool { return told.Load() >= 1 })
	if told.Load() != 1 {
		t.Errorf("%d list_changed sent, want 1", told.Load())
	}
}

// TestAdversarialGatewayCancelMidProgress: a client cancels a call after
// its first progress notification; the upstream's request is cancelled and
// the session keeps working.
func TestAdversarialGatewayCancelMidProgress(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	progress := make(chan struct{}, 16)
	cs := connectSDK(t, s, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		progress <- struct{}{}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "fs_slow", Arguments: map[string]any{}}
		p.SetProgressToken(7)
		_, err := cs.CallTool(ctx, p)
		done <- err
	}()
	recvWithin(t, "the progress", progress)
	cancel()
	if name := recvWithin(t, "the upstream call cancelled", f.cancelled); name != "slow" {
		t.Errorf("cancelled %q", name)
	}
	if err := recvWithin(t, "the cancelled call", done); err == nil {
		t.Error("the cancelled call returned no error")
	}
	if text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"}); isErr {
		t.Errorf("call after the cancel: %s", text)
	}
}
