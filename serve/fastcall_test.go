package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// The fast path (fastcall.go, fastlines.go) against the go-sdk path: the
// same gateway config, one with the fast path and one without
// (hooks.noFastCalls), both in front of the same go-sdk upstream.

// fastTestRevision is a revision whose sessions initialize; sdkDefaultRevision
// the go-sdk client's default (its latest, 2026-07-28), whose requests
// carry the connection in their _meta.
const (
	fastTestRevision   = "2025-11-25"
	sdkDefaultRevision = ""
)

// fastRevisions are the client revisions the differential tests run at.
var fastRevisions = map[string]string{"2025-11-25": fastTestRevision, "2026-07-28 (default)": sdkDefaultRevision}

// eachRevision runs test as parallel subtests, one per fastRevisions.
func eachRevision(t *testing.T, test func(t *testing.T, rev string)) {
	for name, rev := range fastRevisions {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, rev)
		})
	}
}

// probeUpstream is a go-sdk server whose tools bring back every kind of
// answer a forwarded call can get; started and cancelled report the slow
// tool's calls.
type probeUpstream struct {
	srv       *mcp.Server
	started   chan struct{}
	cancelled chan struct{}
	mu        sync.Mutex
	ends      []net.Conn // the server's end of each pipe
}

func newProbeUpstream() *probeUpstream {
	p := &probeUpstream{
		srv:       mcp.NewServer(&mcp.Implementation{Name: "probe-upstream", Version: "1"}, nil),
		started:   make(chan struct{}, 16),
		cancelled: make(chan struct{}, 16),
	}
	in := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}, "required": []any{"message"}}
	add := func(name string, h mcp.ToolHandler) {
		p.srv.AddTool(&mcp.Tool{Name: name, InputSchema: in}, h)
	}
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	add("echo", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text(string(req.Params.Arguments)), StructuredContent: req.Params.Arguments,
			Meta: mcp.Meta{"keep": "me", "progressToken": "theirs", "io.modelcontextprotocol/serverInfo": "hop"}}, nil
	})
	add("meta", func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b, _ := json.Marshal(req.Params.Meta)
		return &mcp.CallToolResult{Content: text(string(b))}, nil
	})
	add("fail", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("the upstream says no"), IsError: true}, nil
	})
	add("boom", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: 4242, Message: "boom went the upstream"}
	})
	add("big", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text(strings.Repeat("0123456789abcdef", 1<<16))}, nil
	})
	add("unicode", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s := "héllo \u2028 \U0001F600 \"quoted\" <tag> \x01"
		return &mcp.CallToolResult{Content: text(s), StructuredContent: map[string]any{"s": s}}, nil
	})
	add("slow", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p.started <- struct{}{}
		<-ctx.Done()
		p.cancelled <- struct{}{}
		return nil, ctx.Err()
	})
	return p
}

// pipe makes the gateway reach p over in-memory pipes framed as stdio.
func (p *probeUpstream) pipe(o *testOptions) {
	o.UpstreamBackoff = 10 * time.Millisecond
	o.upstreamPipe = func(string) func() (io.ReadWriteCloser, error) {
		return func() (io.ReadWriteCloser, error) {
			c, sc := net.Pipe()
			if _, err := p.srv.Connect(context.Background(), &mcp.IOTransport{Reader: sc, Writer: sc}, nil); err != nil {
				return nil, err
			}
			p.mu.Lock()
			p.ends = append(p.ends, sc)
			p.mu.Unlock()
			return c, nil
		}
	}
}

// crash closes the upstream's end of every connection, as a server
// process that dies.
func (p *probeUpstream) crash() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.ends {
		_ = c.Close()
	}
}

const probeGatewayConfig = `server: {name: probe-gateway, version: 1.0.0}
upstreams:
  - name: up
    http: {url: "http://127.0.0.1:1/unused"}
    timeout: 2s
`

// streamPipe serves a session of s over a net.Pipe (ConnectStream) and
// returns it with the client's end; the session is closed when t ends.
func streamPipe(t *testing.T, s *Server) (*mcp.ServerSession, net.Conn) {
	t.Helper()
	c, sc := net.Pipe()
	ss, err := s.ConnectStream(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return ss, c
}

// streamClient connects a go-sdk client at revision rev to s over an
// in-memory pipe served by ConnectStream.
func streamClient(t *testing.T, s *Server, rev string) *mcp.ClientSession {
	t.Helper()
	ss, c := streamPipe(t, s)
	cs := newSDKClient(t, &mcp.IOTransport{Reader: c, Writer: c}, rev).cs
	// Until the server has taken notifications/initialized (or, at
	// 2026-07-28, server/discover), calls go to the go-sdk (the fast
	// path's first condition).
	waitUntil(t, "the session initialized", func() bool {
		return s.initializedForTest(ss) || (rev == sdkDefaultRevision && ss.InitializeParams() != nil)
	})
	return cs
}

// outcome is what a client got from one call: the result as JSON, or the
// error's text.
func outcome(res *mcp.CallToolResult, err error) any {
	if err != nil {
		return "error: " + err.Error()
	}
	b, _ := json.Marshal(res)
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}

// callMetrics flattens the call metrics of s: counters by labels, and the
// handler latency histogram's sample count by tool.
func callMetrics(t *testing.T, s *Server) map[string]float64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		name := mf.GetName()
		if !strings.HasPrefix(name, "mcpctl_serve_calls") && !strings.HasPrefix(name, "mcpctl_serve_handler") && !strings.HasPrefix(name, "mcpctl_serve_facade") {
			continue
		}
		for _, m := range mf.GetMetric() {
			key := name
			for _, l := range m.GetLabel() {
				key += fmt.Sprintf(" %s=%s", l.GetName(), l.GetValue())
			}
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key+" count"] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

// TestFastPathMatchesGoSDKPath: every kind of call (valid; invalid → the
// self-healing isError message; unknown tool → JSON-RPC error; the
// upstream's isError, structuredContent, JSON-RPC error, timeout, big and
// unicode results; _meta both ways) gives the same result through the
// fast path as through the go-sdk, with the same metrics and records, for
// a client at 2025-11-25 and one at the go-sdk's default, 2026-07-28
// (whose results get the gateway's serverInfo in _meta; an invalid
// clientInfo or clientCapabilities gets the go-sdk's error).
func TestFastPathMatchesGoSDKPath(t *testing.T) {
	t.Parallel()
	eachRevision(t, testFastPathMatchesGoSDKPath)
}

func testFastPathMatchesGoSDKPath(t *testing.T, rev string) {
	// Each path has its own upstream, so the two run at once and each
	// waits for its own timed-out call's cancellation.
	fastUp, slowUp := newProbeUpstream(), newProbeUpstream()
	fastRec, slowRec := filepath.Join(t.TempDir(), "fast"), filepath.Join(t.TempDir(), "slow")
	// The timed-out call ("slow", served as t_slow) has an upstream of its
	// own, with a short timeout; the others have a long one: the four runs
	// go at once, and under -race on a loaded machine (load 10, -cpu 1)
	// the go-sdk path's "big" call once took longer than a timeout it
	// shared with "slow" (its result became the timeout's error).
	config := probeGatewayConfig[:strings.Index(probeGatewayConfig, "upstreams:")] + `upstreams:
  - name: up
    http: {url: "http://127.0.0.1:1/unused"}
    timeout: 60s
    tools: {exclude: [slow]}
  - name: timing
    http: {url: "http://127.0.0.1:1/unused"}
    timeout: 2s
    prefix: t_
    tools: {include: [slow]}
`
	fast, _ := startServer(t, config, fastUp.pipe, func(o *testOptions) { o.RecordDir = fastRec })
	slow, _ := startServer(t, config, slowUp.pipe, func(o *testOptions) { o.RecordDir, o.noFastCalls = slowRec, true })
	msg := map[string]any{"message": "x"}
	calls := []mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"message": "hi"}},
		{Name: "echo", Arguments: map[string]any{}},
		{Name: "echo", Arguments: map[string]any{"message": 5}},
		{Name: "nope", Arguments: msg},
		{Name: "fail", Arguments: msg},
		{Name: "boom", Arguments: msg},
		{Name: "big", Arguments: msg},
		{Name: "unicode", Arguments: map[string]any{"message": "é\u2028😀"}},
		{Name: "meta", Arguments: msg, Meta: mcp.Meta{"keep": "k", "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}},
		{Name: "t_slow", Arguments: msg}, // the upstream's timeout
		// Left to the go-sdk: the 2026-07-28 keys as the go-sdk refuses
		// them, or selecting an older revision, or on a 2025-11-25 session.
		{Name: "meta", Arguments: msg, Meta: mcp.Meta{"keep": "k", mcp.MetaKeyClientInfo: "hop"}},
		{Name: "echo", Arguments: msg, Meta: mcp.Meta{mcp.MetaKeyClientInfo: nil}},
		{Name: "echo", Arguments: msg, Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: nil}},
		{Name: "echo", Arguments: msg, Meta: mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"sampling": 5}}},
		{Name: "echo", Arguments: msg, Meta: mcp.Meta{mcp.MetaKeyProtocolVersion: "2025-11-25"}},
		{Name: "echo", Arguments: msg, Meta: mcp.Meta{mcp.MetaKeyProtocolVersion: "2099-01-01"}},
	}
	fastCS, slowCS := streamClient(t, fast, rev), streamClient(t, slow, rev)
	run := func(t *testing.T, cs *mcp.ClientSession, up *probeUpstream) []any {
		var got []any
		for _, c := range calls {
			// The go-sdk writes its protocol keys into a call's _meta, and
			// the two paths run at once.
			c.Meta = maps.Clone(c.Meta)
			got = append(got, outcome(cs.CallTool(context.Background(), &c)))
		}
		recvWithin(t, "the timed-out call cancelled upstream", up.cancelled)
		return got
	}
	var want, got []any
	t.Run("paths", func(t *testing.T) {
		t.Run("go-sdk", func(t *testing.T) { t.Parallel(); want = run(t, slowCS, slowUp) })
		t.Run("fast", func(t *testing.T) { t.Parallel(); got = run(t, fastCS, fastUp) })
	})
	if t.Failed() {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fast path results differ from the go-sdk path (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(callMetrics(t, slow), callMetrics(t, fast)); diff != "" {
		t.Errorf("fast path metrics differ (-want +got):\n%s", diff)
	}
	// Taken: every call before the last six but the unknown tool's.
	if n, want := fast.fastCalls.Load(), int64(len(calls)-6-1); n != want {
		t.Errorf("the fast path took %d calls, want %d", n, want)
	}
	if n := slow.fastCalls.Load(); n != 0 {
		t.Errorf("with the fast path off it took %d calls", n)
	}
	fast.Close() // writes the queued records
	slow.Close()
	_, fastLog := recordedFile(t, fastRec)
	_, slowLog := recordedFile(t, slowRec)
	if diff := cmp.Diff(slowLog, fastLog); diff != "" || strings.Count(fastLog, "\n") != len(calls)-refusedByTheGoSDK(want) {
		t.Errorf("--record differs (%d records; -go-sdk path +fast path):\n%s", strings.Count(fastLog, "\n"), diff)
	}
	if rev == sdkDefaultRevision {
		info := map[string]any{"name": "probe-gateway", "version": "1.0.0"}
		if diff := cmp.Diff(info, got[0].(map[string]any)["_meta"].(map[string]any)[mcp.MetaKeyServerInfo]); diff != "" {
			t.Errorf("a 2026-07-28 result's serverInfo (-want +got):\n%s", diff)
		}
	}
}

// refusedByTheGoSDK counts the outcomes the go-sdk gave before the call
// reached the gateway (a refused _meta or revision): those are not
// recorded.
func refusedByTheGoSDK(outcomes []any) int {
	n := 0
	for _, o := range outcomes {
		if s, ok := o.(string); ok && (strings.Contains(s, "_meta field") || strings.Contains(s, "protocol version")) {
			n++
		}
	}
	return n
}

// TestFastPathUpstreamGoneMatchesGoSDKPath: a call cut by the upstream's
// crash, and a call while it is down, fail alike on both paths.
func TestFastPathUpstreamGoneMatchesGoSDKPath(t *testing.T) {
	t.Parallel()
	eachRevision(t, testFastPathUpstreamGoneMatchesGoSDKPath)
}

func testFastPathUpstreamGoneMatchesGoSDKPath(t *testing.T, rev string) {
	p := newProbeUpstream()
	down := func(o *testOptions) { o.UpstreamBackoff = time.Hour }
	config := strings.Replace(probeGatewayConfig, "2s", "60s", 1)
	fast, _ := startServer(t, config, p.pipe, down)
	slow, _ := startServer(t, config, p.pipe, down, func(o *testOptions) { o.noFastCalls = true })
	fcs, scs := streamClient(t, fast, rev), streamClient(t, slow, rev)
	args := map[string]any{"message": "x"}
	type res struct {
		r   *mcp.CallToolResult
		err error
	}
	var wg sync.WaitGroup
	results := make([]res, 2)
	for i, cs := range []*mcp.ClientSession{fcs, scs} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: args})
			results[i] = res{r, err}
		}()
	}
	recvWithin(t, "the first slow call", p.started)
	recvWithin(t, "the second slow call", p.started)
	p.crash()
	wg.Wait()
	if diff := cmp.Diff(outcome(results[1].r, results[1].err), outcome(results[0].r, results[0].err)); diff != "" {
		t.Errorf("a call cut by the crash (-go-sdk path +fast path):\n%s", diff)
	}
	if !strings.Contains(resultText(results[0].r), "went away") {
		t.Errorf("cut call: %v", outcome(results[0].r, results[0].err))
	}
	for _, s := range []*Server{fast, slow} {
		waitUntil(t, "the upstream down", func() bool { return s.upstreamStatus()[0].State == upstream.StateRestarting })
	}
	fr, ferr := fcs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args})
	sr, serr := scs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args})
	if diff := cmp.Diff(outcome(sr, serr), outcome(fr, ferr)); diff != "" {
		t.Errorf("a call while the upstream is down (-go-sdk path +fast path):\n%s", diff)
	}
	if !strings.Contains(resultText(fr), "unavailable") {
		t.Errorf("call while down: %v", outcome(fr, ferr))
	}
	if diff := cmp.Diff(callMetrics(t, slow), callMetrics(t, fast)); diff != "" {
		t.Errorf("fast path metrics differ (-want +got):\n%s", diff)
	}
}

// TestFastPathCancelReachesUpstream: a client cancelling a fast call makes
// the gateway send the upstream notifications/cancelled for its own
// request (the upstream handler's context ends), and answers nothing; the
// session goes on.
func TestFastPathCancelReachesUpstream(t *testing.T) {
	t.Parallel()
	eachRevision(t, testFastPathCancelReachesUpstream)
}

func testFastPathCancelReachesUpstream(t *testing.T, rev string) {
	p := newProbeUpstream()
	s, _ := startServer(t, strings.Replace(probeGatewayConfig, "2s", "60s", 1), p.pipe)
	cs := streamClient(t, s, rev)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"message": "x"}})
		errc <- err
	}()
	recvWithin(t, "the slow call upstream", p.started)
	cancel()
	recvWithin(t, "the upstream handler's context to end", p.cancelled)
	if err := recvWithin(t, "the client's call to end", errc); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if n := s.fastCalls.Load(); n != 1 {
		t.Errorf("the fast path took %d calls, want 1", n)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "after"}})
	if err != nil || res.IsError {
		t.Fatalf("call after the cancel: %v", outcome(res, err))
	}
	waitUntil(t, "nothing in flight", func() bool { return s.inflight.n.Load() == 0 })
}

// TestFastPathLeavesOddLinesToTheGoSDK: lines the fast path must not take
// get the answers the go-sdk path gives, byte for byte: a tools/call whose
// "name" is spelled "NAME" (encoding/json would read it, the go-sdk does
// not), a tools/call that is not JSON, a batch (refused at 2025-11-25), a call with a progress
// token (the go-sdk's), a call reusing the id of that call while it is in
// flight, and a call whose id is not a plain string or integer.
func TestFastPathLeavesOddLinesToTheGoSDK(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	config := strings.Replace(probeGatewayConfig, "2s", "60s", 1)
	lines := []string{
		`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"NAME":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}]`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":4.0,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow","arguments":{"message":"x"},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"message":"same id"}}}`,
	}
	run := func(s *Server) []string {
		c := dialStream(t, s)
		c.initialize(true)
		waitUntil(t, "the session initialized", func() bool { return s.initializedForTest(c.ss) })
		var got []string
		for i, l := range lines {
			c.send(l)
			if i == 5 {
				recvWithin(t, "the slow call upstream", p.started)
			} else if i < 5 {
				got = append(got, string(c.recv()))
			}
		}
		// The go-sdk answers nothing to the reused id; a ping is the
		// barrier.
		c.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		for {
			l := string(c.recv())
			got = append(got, l)
			if strings.Contains(l, `"id":99`) {
				c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`)
				recvWithin(t, "the slow call cancelled upstream", p.cancelled)
				return got
			}
		}
	}
	slow, _ := startServer(t, config, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, config, p.pipe)
	want, got := run(slow), run(fast)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
	if n := fast.fastCalls.Load(); n != 0 {
		t.Errorf("the fast path took %d of these calls", n)
	}
}

// TestFastPathConcurrentWithGoSDKCalls: on one session, calls the fast
// path takes and calls it leaves to the go-sdk (a progress token) run
// concurrently, each answered with its own result.
func TestFastPathConcurrentWithGoSDKCalls(t *testing.T) {
	t.Parallel()
	eachRevision(t, testFastPathConcurrentWithGoSDKCalls)
}

func testFastPathConcurrentWithGoSDKCalls(t *testing.T, rev string) {
	p := newProbeUpstream()
	s, _ := startServer(t, probeGatewayConfig, p.pipe)
	cs := streamClient(t, s, rev)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("call %d", i)
			params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}}
			if i%2 == 1 {
				params.Meta = mcp.Meta{"progressToken": i}
			}
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError || echoed(res)["message"] != msg {
				errs <- fmt.Errorf("%s: %v", msg, outcome(res, err))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := s.fastCalls.Load(); got != n/2 {
		t.Errorf("the fast path took %d calls, want %d", got, n/2)
	}
}

// TestFastPathPanicRecovered: a panic during a fast call (injected) is
// the isError result the go-sdk path gives, counted, and the session goes
// on.
func TestFastPathPanicRecovered(t *testing.T) {
	t.Parallel()
	eachRevision(t, testFastPathPanicRecovered)
}

func testFastPathPanicRecovered(t *testing.T, rev string) {
	p := newProbeUpstream()
	var inject atomic.Bool
	s, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) {
		o.beforeCall = func(string) {
			if inject.Load() {
				panic("injected call panic")
			}
		}
	})
	cs := streamClient(t, s, rev)
	inject.Store(true)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "internal error in the server") {
		t.Errorf("a panicking fast call: %v", outcome(res, err))
	}
	if _, ok := res.Meta[mcp.MetaKeyServerInfo]; ok != (rev == sdkDefaultRevision) {
		t.Errorf("a panicking fast call's _meta: %v (the go-sdk adds serverInfo at 2026-07-28 only)", res.Meta)
	}
	inject.Store(false)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err != nil || res.IsError {
		t.Errorf("the next call: %v", outcome(res, err))
	}
	if n := s.fastCalls.Load(); n != 2 {
		t.Errorf("the fast path took %d calls, want 2", n)
	}
	if m := metricsText(t, s); !strings.Contains(m, "\nmcpctl_serve_panics_total{where=\"call\"} 1\n") {
		t.Error("/metrics does not count the panic")
	}
}

// TestFastCallBodyForHTTPSessions: the seam for streamable HTTP answers a
// tools/call of an initialized HTTP session by its Mcp-Session-Id (as
// FastCall does given the session), and leaves other messages and unknown
// sessions to the go-sdk.
func TestFastCallBodyForHTTPSessions(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	s, _ := startServer(t, probeGatewayConfig, p.pipe)
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{}))
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: fastTestRevision})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"over http"}}}`)
	var resp []byte
	waitUntil(t, "the fast path to take the call", func() bool {
		var ok bool
		resp, ok = s.FastCallBody(context.Background(), cs.ID(), call)
		return ok
	})
	var got struct {
		ID     int                `json:"id"`
		Result mcp.CallToolResult `json:"result"`
	}
	if err := json.Unmarshal(resp, &got); err != nil || got.ID != 7 || got.Result.IsError || !strings.Contains(resultText(&got.Result), "over http") {
		t.Errorf("response %s (%v)", resp, err)
	}
	v, _ := s.notifier.byID.Load(cs.ID())
	direct, ok := s.FastCall(context.Background(), v.(*mcp.ServerSession), json.RawMessage("7"), json.RawMessage(`{"name":"echo","arguments":{"message":"over http"}}`))
	if !ok || string(direct) != string(resp) {
		t.Errorf("FastCall = %s, %v; want FastCallBody's %s", direct, ok, resp)
	}
	for name, c := range map[string]struct{ session, body string }{
		"tools/list":      {cs.ID(), `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`},
		"a notification":  {cs.ID(), `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`},
		"a batch":         {cs.ID(), `[` + string(call) + `]`},
		"unknown session": {"nope", string(call)},
	} {
		if _, ok := s.FastCallBody(context.Background(), c.session, []byte(c.body)); ok {
			t.Errorf("%s: taken by the fast path", name)
		}
	}
}

// TestFastPathOverRunStdio: `mcpctl serve` on stdio in front of a stdio
// upstream (cmd/mutableupstream): the call is taken by the fast path on
// both hops, and a call read just before the end of input is still
// answered (the end of input waits for fast calls as for the go-sdk's).
func TestFastPathOverRunStdio(t *testing.T) {
	t.Parallel()
	bin := mutableProgram(t)
	s, _ := startServer(t, fmt.Sprintf("server: {name: stdio-gw, version: 1.0.0}\nupstreams:\n  - name: m\n    stdio: [%q]\n", bin))
	p := runStdioPipe(t, s)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	p.recv()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	waitUntil(t, "the session initialized", func() bool {
		for ss := range s.mcp.Sessions() {
			return s.initializedForTest(ss)
		}
		return false
	})
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi ✓"}}}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"last"}}}`)
	p.in.Close()
	got := map[int]string{}
	for range 2 {
		var m struct {
			ID     int                `json:"id"`
			Result mcp.CallToolResult `json:"result"`
		}
		line := p.recv()
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got[m.ID] = fmt.Sprint(echoed(&m.Result)["message"])
	}
	if diff := cmp.Diff(map[int]string{2: "hi ✓", 3: "last"}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if n := s.fastCalls.Load(); n != 2 {
		t.Errorf("the fast path took %d calls, want 2", n)
	}
}

// TestFastPathSessionlessLinesMatchGoSDK: raw 2026-07-28 tools/call lines
// (no initialize) get the go-sdk path's answers: the first call, which
// gives the session its revision, and calls whose _meta the go-sdk
// refuses (no or null clientCapabilities, a clientInfo that is not an
// Implementation, an unsupported or non-string protocolVersion, a _meta
// spelled "_META") are left to it; the valid ones are taken and carry the gateway's serverInfo.
func TestFastPathSessionlessLinesMatchGoSDK(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	const (
		rev  = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
		caps = `"io.modelcontextprotocol/clientCapabilities":{}`
		info = `"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}`
	)
	call := func(id int, tool, meta string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"message":"x"},"_meta":{%s}}}`, id, tool, meta)
	}
	lines := []string{
		call(1, "echo", rev+","+caps+","+info), // sets the session's revision: the go-sdk's
		call(2, "echo", rev+","+caps+","+info),
		call(3, "fail", rev+","+caps),
		call(4, "echo", rev+","+caps+`,"keep":"k"`),
		call(5, "echo", rev+","+info),
		call(6, "echo", rev+","+info+`,"io.modelcontextprotocol/clientCapabilities":null`),
		call(7, "echo", rev+","+caps+`,"io.modelcontextprotocol/clientInfo":"raw"`),
		call(8, "echo", rev+","+caps+`,"io.modelcontextprotocol/clientInfo":null`),
		call(9, "echo", rev+`,"io.modelcontextprotocol/clientCapabilities":{"roots":5}`),
		call(10, "echo", `"io.modelcontextprotocol/protocolVersion":"2099-01-01",`+caps),
		call(11, "echo", `"io.modelcontextprotocol/protocolVersion":20260728,`+caps),
		call(12, "echo", `"keep":"k"`),
		strings.Replace(call(13, "echo", rev+","+caps), `"_meta"`, `"_META"`, 1), // not _meta to the go-sdk
	}
	run := func(s *Server) []any {
		c := dialStream(t, s)
		var got []any
		for _, l := range lines {
			c.send(l)
			var v any
			if err := json.Unmarshal(c.recv(), &v); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		return got
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	want, got := run(slow), run(fast)
	kinds := []string{"serverInfo", "serverInfo", "serverInfo", "serverInfo", "error", "error", "error", "error", "error", "error", "plain", "plain", "plain"}
	if diff := cmp.Diff(kinds, answerKinds(want)); diff != "" {
		t.Errorf("the go-sdk path's answers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
	if n := fast.fastCalls.Load(); n != 3 {
		t.Errorf("the fast path took %d calls, want 3 (ids 2, 3, 4)", n)
	}
}

// answerKinds classifies JSON-RPC responses: an error, a result with the
// server's serverInfo in _meta, or another result.
func answerKinds(answers []any) []string {
	var kinds []string
	for _, a := range answers {
		m, _ := a.(map[string]any)
		res, _ := m["result"].(map[string]any)
		meta, _ := res["_meta"].(map[string]any)
		switch {
		case m["error"] != nil:
			kinds = append(kinds, "error")
		case meta[mcp.MetaKeyServerInfo] != nil:
			kinds = append(kinds, "serverInfo")
		default:
			kinds = append(kinds, "plain")
		}
	}
	return kinds
}
