package serve

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/internal/upstreamtest"
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

// TestMaxCallsRefusalIsNotAToolError (reproduction: at the bound, a call
// to a tool the server does not have got the busy result, "try again
// later", where any other time it gets the unknown-tool error; and a
// refused call's span was marked error.type "tool_error", as if the tool
// had failed). Now a call to an unknown tool at the bound gets the
// unknown-tool error and is not counted as refused, and a refused call's
// span says error.type "mcpctl.max_calls".
func TestMaxCallsRefusalIsNotAToolError(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	s, u := maxCallsGateway(t, 1, func(o *testOptions) { o.TracerProvider = tp })
	cs := streamClient(t, s, sdkDefaultRevision)
	ctx, cancel := context.WithCancel(context.Background())
	ended := holdSlow(ctx, t, cs, u, 1)
	defer func() {
		endHeld(t, cancel, ended, 1)
		// Before the upstream closes: a go-sdk server's session waits for
		// its handlers, and the slow one ends only when cancelled.
		recvWithin(t, "the upstream to see the cancellation", u.Cancelled())
	}()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope"`) {
		t.Errorf("a call to an unknown tool at the bound: %v, want the unknown-tool error", err)
	}
	if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); !isErr || !strings.Contains(text, "maximum of 1 calls") {
		t.Errorf("a call at the bound: %v %q, want the busy result", isErr, text)
	}
	if n := s.Status().RefusedAtMax; n != 1 {
		t.Errorf("refusedAtMax %d, want 1 (the unknown tool's call is not refused for the bound)", n)
	}
	types := map[string]string{}
	for _, sp := range exp.GetSpans() {
		for _, kv := range sp.Attributes {
			if kv.Key == attrErrorType {
				types[sp.Name] = kv.Value.AsString()
			}
		}
	}
	if want := map[string]string{"tools/call nope": "-32602", "tools/call echo": "mcpctl.max_calls"}; !cmp.Equal(types, want) {
		t.Errorf("spans' error.type %v, want %v", types, want)
	}
}

// TestMaxCallsRefusedCallsAreRecorded: with --record, a call refused at
// --max-calls was not recorded, nor was a call to an unknown tool made at
// the bound, though both are calls a client made against the contract
// (what replay and diff --usage read). Now the refused call is recorded
// without an expected outcome (its arguments were not validated), and
// the unknown tool's call as unknown-tool, as at any other time.
func TestMaxCallsRefusedCallsAreRecorded(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "rec")
	s, u := maxCallsGateway(t, 1, func(o *testOptions) { o.RecordDir = rec })
	cs := streamClient(t, s, sdkDefaultRevision)
	ctx, cancel := context.WithCancel(context.Background())
	ended := holdSlow(ctx, t, cs, u, 1)
	if _, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "busy"}); !isErr {
		t.Error("the call at the bound was not refused")
	}
	_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{"a": 1}})
	endHeld(t, cancel, ended, 1)
	recvWithin(t, "the upstream to see the cancellation", u.Cancelled())
	s.Close()
	recorded, err := fixtures.Read(context.Background(), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fixtures.Outcome{}
	for _, c := range recorded {
		args, _ := json.Marshal(c.Arguments)
		got[c.Tool+" "+string(args)] = c.Expect
	}
	want := map[string]fixtures.Outcome{
		upstreamtest.SlowTool + ` {}`: fixtures.Accepted,
		`echo {"message":"busy"}`:     "",
		`nope {"a":1}`:                fixtures.UnknownTool,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}
