package serve

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestMaxCallsRefusesBeyondTheBound (reproduction: a client sending calls
// faster than the tools answer them made the server hold every one, a
// goroutine, its arguments and an upstream call each, without end; nothing
// bounded the calls in flight but the exec pool). With MaxCalls 2 and two
// calls of a tool that runs until cancelled in flight, a third call is an
// isError result at once, on the fast path (2025-11-25) and through the
// go-sdk (2026-07-28), counted in /status and /metrics; once the slow calls
// end, calls run again.
func TestMaxCallsRefusesBeyondTheBound(t *testing.T) {
	t.Parallel()
	for name, rev := range map[string]string{"fast-path": "2025-11-25", "go-sdk-path": sdkDefaultRevision} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, u := maxCallsGateway(t, 2)
			cs := streamClient(t, s, rev)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := holdSlow(ctx, t, cs, u, 2)
			text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"})
			if !isErr || !strings.Contains(text, "maximum of 2 calls at once") {
				t.Errorf("a third call: isError %v, %q; want the server's maximum of 2 calls", isErr, text)
			}
			if st := s.Status(); st.InFlight != 2 || st.MaxInFlight != 2 || st.RefusedAtMax != 1 {
				t.Errorf("/status: inFlight %d maxInFlight %d refusedAtMax %d, want 2 2 1", st.InFlight, st.MaxInFlight, st.RefusedAtMax)
			}
			m := metricsText(t, s)
			for _, want := range []string{"mcpctl_serve_calls_in_flight 2", "mcpctl_serve_calls_max 2", "mcpctl_serve_calls_refused_total 1"} {
				if !strings.Contains(m, want+"\n") {
					t.Errorf("/metrics lacks %q", want)
				}
			}
			cancel()
			for range 2 {
				select {
				case <-ended:
				case <-time.After(waitLong):
					t.Fatal("a cancelled slow call never ended")
				}
			}
			waitUntil(t, "no call in flight", func() bool { return s.Status().InFlight == 0 })
			if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); isErr {
				t.Errorf("a call once the slow ones ended: %s", text)
			}
		})
	}
}
