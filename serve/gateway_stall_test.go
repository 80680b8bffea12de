package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stallingUpstream is a stdio upstream written by hand whose tool "reply"
// answers {"content":[]}, until stall is set: then it stops reading its
// input after the next line, as a stdio server whose event loop is blocked
// does (node reads stdin only between the jobs of its event loop).
func stallingUpstream(stall *atomic.Bool, released <-chan struct{}) func(*testOptions) {
	return func(o *testOptions) {
		o.UpstreamBackoff = 10 * time.Millisecond
		o.upstreamPipe = func(string) func() (io.ReadWriteCloser, error) {
			return func() (io.ReadWriteCloser, error) {
				c, sc := net.Pipe()
				go serveStalling(sc, stall, released)
				return c, nil
			}
		}
	}
}

// eachPathStalling runs test on a gateway (config) fronting a stalling
// upstream, once through the fast path and once with it off, in parallel;
// stall stops the upstream's reading (see stallingUpstream).
func eachPathStalling(t *testing.T, config string, test func(t *testing.T, s *Server, stall *atomic.Bool)) {
	for _, path := range []struct {
		name  string
		tweak func(*testOptions)
	}{{"fast", func(*testOptions) {}}, {"go-sdk", func(o *testOptions) { o.noFastCalls = true }}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			var stall atomic.Bool
			released := make(chan struct{})
			defer close(released)
			s, _ := startServer(t, config, stallingUpstream(&stall, released), path.tweak)
			test(t, s, &stall)
		})
	}
}

func serveStalling(c net.Conn, stall *atomic.Bool, released <-chan struct{}) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if stall.Load() {
			<-released // reads nothing more
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"stalling","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"reply","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = `{"content":[]}`
		}
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result); err != nil {
			return
		}
	}
}

// TestGatewayStalledUpstreamCallTimesOut: every forwarded call ends within
// its upstream's timeout, also when the upstream stops reading. The
// reproduction: an upstream (timeout 300ms) stops reading after one more
// line; the call whose line it read timed out, but the next call's write
// (and the first call's notifications/cancelled) blocked on the pipe the
// upstream no longer drains, and that call never returned: the timeout
// only ran once the request was written.
func TestGatewayStalledUpstreamCallTimesOut(t *testing.T) {
	t.Parallel()
	config := strings.Replace(probeGatewayConfig, "timeout: 2s", "timeout: 300ms", 1)
	eachPathStalling(t, config, func(t *testing.T, s *Server, stall *atomic.Bool) {
		cs := streamClient(t, s, "2025-11-25")
		call := func() (*mcp.CallToolResult, error) {
			return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "reply", Arguments: map[string]any{}})
		}
		if res, err := call(); err != nil || res.IsError {
			t.Fatalf("before the stall: %v", outcome(res, err))
		}
		stall.Store(true)
		for i := 1; i <= 3; i++ {
			done := make(chan any, 1)
			go func() { done <- outcome(call()) }()
			select {
			case got := <-done:
				// The first call meets the timeout. A write the
				// upstream does not take within its timeout (the
				// first call's notifications/cancelled, a go-sdk
				// write) ends the connection on both paths (the
				// go-sdk treats a failed write as a broken one), so
				// the later calls may find the upstream gone instead.
				text := fmt.Sprint(got)
				timedOut := strings.Contains(text, `upstream "up": no answer within 300ms`)
				gone := strings.Contains(text, `upstream "up"`) && (strings.Contains(text, "went away") || strings.Contains(text, "unavailable"))
				if !timedOut && (i == 1 || !gone) {
					t.Errorf("call %d to the stalled upstream: %v, want its timeout", i, got)
				}
			case <-time.After(waitLong):
				t.Fatalf("call %d to the stalled upstream: no answer after %v (its timeout is 300ms)", i, waitLong)
			}
		}
	})
}
