package serve

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client at 2026-07-28 (the go-sdk's default) opens a
// subscriptions/listen request as it connects: the stream its server
// notifications come on, answered only when the session ends (MCP
// 2026-07-28, SEP-2575). The line-delimited transports counted it as a
// request waiting for its answer.

// TestStdio20260728SessionEndsWhenItsClientCloses (reproduction: a
// 2026-07-28 client closed mcpctl serve's stdin; the server waited for
// the listen request to be answered until the shutdown timeout, 10 s on
// a ConnectStream session, then logged "abandoning unanswered
// requests"). Now the session ends at once, as a 2025-11-25 one does.
func TestStdio20260728SessionEndsWhenItsClientCloses(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := runStdio(context.Background(), s, inR, outW, time.Hour)
	cs := newSDKClient(t, &mcp.IOTransport{Reader: outR, Writer: inW}, sdkDefaultRevision).cs
	if text, isErr := sdkCall(t, cs, "search_documents", map[string]any{"query": "x"}); isErr {
		t.Fatalf("call: %s", text)
	}
	_ = inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	waitRun(t, done, "after a 2026-07-28 client closed its end (the shutdown timeout is an hour)")
	_ = outW.Close()
}

// TestMaxCallsOneLeaves20260728ClientRoom (reproduction: with
// --max-calls 1 a stdio session reads at most 2 unanswered requests; a
// 2026-07-28 client's listen request took one for good, so while one call
// ran the server read nothing more from it: its tools/list waited for the
// call's end, 60 s, and its notifications/cancelled for the call never
// arrived). Now, with one call held, tools/list is answered and the call
// can be cancelled.
func TestMaxCallsOneLeaves20260728ClientRoom(t *testing.T) {
	t.Parallel()
	s, u := maxCallsGateway(t, 1)
	cs := streamClient(t, s, sdkDefaultRevision)
	ctx, cancel := context.WithCancel(context.Background())
	ended := holdSlow(ctx, t, cs, u, 1)
	listed := make(chan error, 1)
	go func() {
		_, err := cs.ListTools(context.Background(), nil)
		listed <- err
	}()
	if err := recvWithin(t, "tools/list with one call held", listed); err != nil {
		t.Errorf("tools/list: %v", err)
	}
	endHeld(t, cancel, ended, 1)
	recvWithin(t, "the upstream to see the cancellation", u.Cancelled())
	waitUntil(t, "the cancelled call's slot freed", func() bool { return s.Status().InFlight == 0 })
	if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); isErr || !strings.Contains(text, "hi") {
		t.Errorf("a call after the cancelled one: %s", text)
	}
}
