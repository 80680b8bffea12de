package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

// deafClient connects to s over ConnectStream, initializes, sends lines
// and then reads nothing more: a stdio client whose own loop is blocked.
// It returns the session and the client's end.
func deafClient(t *testing.T, s *Server, lines ...string) (*mcp.ServerSession, net.Conn) {
	t.Helper()
	ss, c := streamPipe(t, s)
	r := bufio.NewReader(c)
	fmt.Fprintln(c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"deaf","version":"1"}}}`)
	if _, err := r.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	waitUntil(t, "the deaf session initialized", func() bool { return s.initializedForTest(ss) })
	for _, l := range lines {
		fmt.Fprintln(c, l)
	}
	return ss, c
}

// TestAdversarialDeafClientHoldsNoOtherSession: a downstream session that
// stops reading holds up no other session's calls to the same upstream,
// nor their progress. Reproduction: a stdio client sends a call with a
// progress token and reads nothing more; relaying its first progress
// notification blocks on its stream, and the go-sdk client of the
// upstream hands notifications to their handler one at a time, so every
// other session's progress (and the upstream's list_changed) waited
// behind it.
func TestAdversarialDeafClientHoldsNoOtherSession(t *testing.T) {
	t.Parallel()
	u := upstreamtest.New(&upstreamtest.Options{ProgressSteps: 5}, upstreamtest.DefaultTools()...)
	s, _ := startServer(t, "server: {name: deaf-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    http: {url: \"http://127.0.0.1:1/unused\"}\n",
		viaMemory(map[string]*upstreamtest.Upstream{"m": u}))
	_, c := deafClient(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":1},"_meta":{"progressToken":"deaf"}}}`)
	t.Cleanup(func() { _ = c.Close() }) // the client goes away in the end

	var got atomic.Int64
	cs := connectSDK(t, s, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { got.Add(1) },
	})
	for i := range 3 {
		p := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": i}}
		p.SetProgressToken(fmt.Sprintf("other-%d", i))
		if res, err := cs.CallTool(context.Background(), p); err != nil || res.IsError {
			t.Fatalf("call %d of another session: %v %s", i, err, resultText(res))
		}
	}
	waitCall(t, "the other session's progress", func() error {
		if n := got.Load(); n != 15 {
			return fmt.Errorf("%d of 15 arrived", n)
		}
		return nil
	})
}

// TestAdversarialDeafClientSessionCloses: closing a ConnectStream session
// whose client stopped reading returns. Reproduction: the client sends a
// call with a progress token and reads nothing more; the relayed progress
// notification blocks on the stream, the go-sdk closes a connection only
// once nothing is in flight, and the call's response waits behind that
// write: the session's Close never returned.
func TestAdversarialDeafClientSessionCloses(t *testing.T) {
	t.Parallel()
	u := upstreamtest.New(&upstreamtest.Options{ProgressSteps: 5}, upstreamtest.DefaultTools()...)
	s, _ := startServer(t, "server: {name: deaf-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    http: {url: \"http://127.0.0.1:1/unused\"}\n",
		viaMemory(map[string]*upstreamtest.Upstream{"m": u}), func(o *testOptions) { o.lineWriteTimeout = 100 * time.Millisecond })
	ss, c := deafClient(t, s, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{"n":1},"_meta":{"progressToken":"deaf"}}}`)
	defer c.Close()
	closed := make(chan struct{})
	go func() {
		_ = ss.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(waitLong):
		t.Fatalf("the session's Close did not return in %v", waitLong)
	}
}
