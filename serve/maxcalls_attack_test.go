package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

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

// endHeld cancels the held slow calls and waits for n of them to end.
func endHeld(t *testing.T, cancel context.CancelFunc, ended <-chan struct{}, n int) {
	t.Helper()
	cancel()
	for range n {
		recvWithin(t, "a cancelled slow call to end", ended)
	}
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
	callers := make([]func() (string, bool, error), 0, len(css))
	for _, cs := range css {
		callers = append(callers, sdkEcho(cs))
	}
	floodAtBound(t, s, k, callsEach, callers...)
	endHeld(t, cancel, ended, k-1)
}

// sdkEcho calls the upstream's echo tool on cs.
func sdkEcho(cs *mcp.ClientSession) func() (string, bool, error) {
	return func() (string, bool, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
		if err != nil {
			return "", false, err
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError, nil
	}
}

// floodAtBound runs each caller callsEach times at once against s with
// MaxCalls k (with slots held by the caller of floodAtBound) and checks
// that the calls in flight never exceed k, that every busy result the
// callers saw is counted once in refusedAtMax (since the test started),
// and that every other call succeeded.
func floodAtBound(t *testing.T, s *Server, k, callsEach int, callers ...func() (string, bool, error)) {
	t.Helper()
	before, g := s.Status().RefusedAtMax, s.live.Load()
	refs := g.refs.Load()
	stop := peakSampler(s)
	busyText := fmt.Sprintf("maximum of %d calls at once", k)
	var busy, ok, other atomic.Int64
	var wg sync.WaitGroup
	for _, call := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range callsEach {
				text, isErr, err := call()
				switch {
				case err != nil:
					t.Errorf("a call failed: %v", err)
					other.Add(1)
				case isErr && strings.Contains(text, busyText):
					busy.Add(1)
				case !isErr:
					ok.Add(1)
				default:
					t.Errorf("a call: isError %q", text)
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
		t.Errorf("%d calls neither succeeded nor were refused at the bound", other.Load())
	}
	if got := s.Status().RefusedAtMax - before; got != busy.Load() {
		t.Errorf("refusedAtMax grew by %d, clients saw %d busy results (%d succeeded)", got, busy.Load(), ok.Load())
	}
	if got := g.refs.Load(); got != refs {
		t.Errorf("the live generation holds %d references after the flood, %d before", got, refs)
	}
	t.Logf("%d succeeded, %d refused, peak %d", ok.Load(), busy.Load(), peak)
}

// rawIDs are the JSON-RPC ids of rawHTTPEcho's requests, distinct on
// every session (beyond those of the go-sdk clients).
var rawIDs atomic.Int64

// rawHTTPEcho POSTs an echo tools/call to url (the headers of a
// 2025-11-25 client, and the session's id when sid is set) and reads the
// result from a JSON or event-stream answer.
func rawHTTPEcho(url, sid string) func() (string, bool, error) {
	return func() (string, bool, error) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, 1<<20+rawIDs.Add(1))
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", fastTestRevision)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", false, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return "", false, err
		}
		if i := bytes.Index(data, []byte("data: ")); i >= 0 {
			data, _, _ = bytes.Cut(data[i+len("data: "):], []byte("\n"))
		}
		var msg struct {
			Result *struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &msg); err != nil || msg.Result == nil || len(msg.Result.Content) == 0 {
			return "", false, fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
		}
		return msg.Result.Content[0].Text, msg.Result.IsError, nil
	}
}

// TestMaxCallsFloodHTTP is TestMaxCallsFloodNeverExceedsTheBound over
// streamable HTTP: go-sdk clients of a stateful server (2025-11-25, the
// HTTP fast path, and 2025-06-18) and of a stateless one, and raw POSTs to
// both, flood echo calls while MaxCalls-1 slow calls hold their slots.
func TestMaxCallsFloodHTTP(t *testing.T) {
	t.Parallel()
	const k, callsEach = 3, 60
	s, u := maxCallsGateway(t, k)
	stateful := httpServer(t, s, HTTPOptions{})
	stateless := httpServer(t, s, HTTPOptions{Stateless: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	holder := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: stateful.URL}, fastTestRevision).cs
	ended := holdSlow(ctx, t, holder, u, k-1)
	var callers []func() (string, bool, error)
	for _, c := range []struct {
		url, rev string
	}{{stateful.URL, fastTestRevision}, {stateful.URL, "2025-06-18"}, {stateless.URL, sdkDefaultRevision}, {stateful.URL, fastTestRevision}} {
		callers = append(callers, sdkEcho(newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: c.url}, c.rev).cs))
	}
	callers = append(callers, rawHTTPEcho(stateless.URL, ""), rawHTTPEcho(stateful.URL, holder.ID()), rawHTTPEcho(stateful.URL, holder.ID()))
	floodAtBound(t, s, k, callsEach, callers...)
	endHeld(t, cancel, ended, k-1)
}

// TestMaxCallsCancelAtTheBound: with MaxCalls 2 and two slow calls in
// flight (a third refused), notifications/cancelled for one of them still
// reaches the server, ends the upstream call and frees its slot: the next
// call runs. Over the in-memory line transport (stdio's) and streamable
// HTTP, stateful and stateless, on the fast path and the go-sdk path.
func TestMaxCallsCancelAtTheBound(t *testing.T) {
	t.Parallel()
	for name, connect := range map[string]func(t *testing.T, s *Server) *mcp.ClientSession{
		"stream fast path": func(t *testing.T, s *Server) *mcp.ClientSession { return streamClient(t, s, fastTestRevision) },
		"stream go-sdk":    func(t *testing.T, s *Server) *mcp.ClientSession { return streamClient(t, s, sdkDefaultRevision) },
		"http fast path": func(t *testing.T, s *Server) *mcp.ClientSession {
			return newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: httpServer(t, s, HTTPOptions{}).URL}, fastTestRevision).cs
		},
		"http 2025-06-18": func(t *testing.T, s *Server) *mcp.ClientSession {
			return newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: httpServer(t, s, HTTPOptions{}).URL}, "2025-06-18").cs
		},
		"http stateless": func(t *testing.T, s *Server) *mcp.ClientSession {
			return newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: httpServer(t, s, HTTPOptions{Stateless: true}).URL}, sdkDefaultRevision).cs
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, u := maxCallsGateway(t, 2)
			cs := connect(t, s)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first, firstCancel := context.WithCancel(ctx)
			firstEnded := holdSlow(first, t, cs, u, 1)
			ended := holdSlow(ctx, t, cs, u, 1)
			if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); !isErr || !strings.Contains(text, "maximum of 2") {
				t.Fatalf("a third call: isError %v, %q; want refused at the bound", isErr, text)
			}
			firstCancel()
			recvWithin(t, "the upstream to see the cancellation", u.Cancelled())
			recvWithin(t, "the cancelled call to end", firstEnded)
			waitUntil(t, "one call in flight", func() bool { return s.Status().InFlight == 1 })
			if text, isErr := sdkCall(t, cs, "echo", map[string]any{"message": "hi"}); isErr {
				t.Errorf("a call once one slow call was cancelled: %s", text)
			}
			if got := s.Status().RefusedAtMax; got != 1 {
				t.Errorf("refusedAtMax %d, want 1", got)
			}
			cancel()
			recvWithin(t, "the other slow call to end", ended)
		})
	}
}

// TestMaxCallsDrainAndCloseAtTheBound: with MaxCalls 2 held by a fast-path
// call and a go-sdk-path call, a call while the server drains is the
// shutting-down error, not a busy result (not counted in refusedAtMax);
// Close ends both held calls, the count in flight drops to zero (what
// drain waits for) and no generation reference is left (TestMain's goleak
// checks the goroutines).
func TestMaxCallsDrainAndCloseAtTheBound(t *testing.T) {
	t.Parallel()
	s, u := maxCallsGateway(t, 2)
	fast, sdk := streamClient(t, s, fastTestRevision), streamClient(t, s, sdkDefaultRevision)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := s.live.Load()
	refs := g.refs.Load()
	ended := holdSlow(ctx, t, fast, u, 1)
	ended2 := holdSlow(ctx, t, sdk, u, 1)
	s.draining.Store(true)
	for _, cs := range []*mcp.ClientSession{fast, sdk} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}})
		if err == nil || !strings.Contains(err.Error(), "shutting down") {
			t.Errorf("a call while draining at the bound: %v, want the shutting-down error", err)
		}
	}
	if got := s.Status().RefusedAtMax; got != 0 {
		t.Errorf("refusedAtMax %d while draining, want 0", got)
	}
	s.Close()
	recvWithin(t, "the fast-path call to end at Close", ended)
	recvWithin(t, "the go-sdk-path call to end at Close", ended2)
	wctx, wcancel := context.WithTimeout(context.Background(), waitLong)
	defer wcancel()
	if err := s.inflight.wait(wctx); err != nil {
		t.Fatalf("calls in flight after Close: %d", s.inflight.count())
	}
	if got := g.refs.Load(); got != refs-1 { // Close released the live one's own
		t.Errorf("the generation holds %d references after Close, want %d", got, refs-1)
	}
}

// echoBatch is a JSON-RPC batch of n echo tools/calls, ids from+1 to
// from+n.
func echoBatch(from, n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`, from+i+1)
	}
	return b.String() + "]"
}

// batchOutcomes reads a batch response's results: how many were refused
// at the bound (busyText), how many succeeded; anything else is an error.
func batchOutcomes(t *testing.T, data []byte, n int, busyText string) (busy, ok int) {
	t.Helper()
	var msgs []struct {
		ID     int `json:"id"`
		Result *struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &msgs); err != nil || len(msgs) != n {
		t.Fatalf("a batch of %d calls answered %.300s", n, data)
	}
	for _, m := range msgs {
		switch {
		case m.Result == nil || len(m.Result.Content) == 0:
			t.Errorf("call %d of the batch: no result", m.ID)
		case m.Result.IsError && strings.Contains(m.Result.Content[0].Text, busyText):
			busy++
		case !m.Result.IsError:
			ok++
		default:
			t.Errorf("call %d of the batch: %s", m.ID, m.Result.Content[0].Text)
		}
	}
	return busy, ok
}

// TestMaxCallsBatchAtTheBound: a 2025-03-26 session's JSON-RPC batch of
// calls (stdio) is held to MaxCalls like separate calls. With every slot
// held, each call of a batch is a busy result, counted once; with one slot
// free, a batch of 20 never has more than MaxCalls in flight and every
// call that was not refused echoes.
func TestMaxCallsBatchAtTheBound(t *testing.T) {
	t.Parallel()
	const k = 3
	s, u := maxCallsGateway(t, k)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	holder := streamClient(t, s, fastTestRevision)
	ended := holdSlow(ctx, t, holder, u, k-1)
	p := runStdioPipe(t, s)
	p.initialize("2025-03-26")
	busyText := fmt.Sprintf("maximum of %d calls at once", k)

	stop := peakSampler(s)
	p.send(echoBatch(0, 20))
	busy, ok := batchOutcomes(t, []byte(p.recv()), 20, busyText)
	if peak := stop(); peak > k {
		t.Errorf("calls in flight peaked at %d, over MaxCalls %d", peak, k)
	}
	if got := s.Status().RefusedAtMax; got != int64(busy) {
		t.Errorf("refusedAtMax %d, the batch got %d busy results (%d echoed)", got, busy, ok)
	}

	last := holdSlow(ctx, t, holder, u, 1)
	// Ids the first batch did not use, so that this batch tests the bound
	// alone (.ci/run failed once with "a batch repeats a request id, or
	// reuses one in flight": the session freed an id only once its
	// answer's write returned; TestStdioIDReusedRightAfterItsAnswer).
	p.send(echoBatch(20, 5))
	if busy, ok := batchOutcomes(t, []byte(p.recv()), 5, busyText); busy != 5 {
		t.Errorf("a batch of 5 with every slot held: %d busy, %d echoed; want 5 busy", busy, ok)
	}
	if got, want := s.Status().RefusedAtMax, int64(busy+5); got != want {
		t.Errorf("refusedAtMax %d, want %d", got, want)
	}
	endHeld(t, cancel, ended, k-1)
	recvWithin(t, "the last slow call to end", last)
}

// TestMaxCallsFloodTracedOrWithProgress is the flood of
// TestMaxCallsFloodNeverExceedsTheBound on the paths the fast path leaves
// to the go-sdk: every call while tracing is on, and calls with a
// progressToken. The bound holds and every busy result is counted once.
func TestMaxCallsFloodTracedOrWithProgress(t *testing.T) {
	t.Parallel()
	const k, clients, callsEach = 3, 4, 50
	progressEcho := func(cs *mcp.ClientSession) func() (string, bool, error) {
		return func() (string, bool, error) {
			p := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}
			p.SetProgressToken(fmt.Sprintf("p-%d", rawIDs.Add(1)))
			res, err := cs.CallTool(context.Background(), p)
			if err != nil {
				return "", false, err
			}
			return res.Content[0].(*mcp.TextContent).Text, res.IsError, nil
		}
	}
	for name, tc := range map[string]struct {
		tweak func(*testOptions)
		call  func(*mcp.ClientSession) func() (string, bool, error)
	}{
		"traced": {func(o *testOptions) {
			o.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewInMemoryExporter()))
		}, sdkEcho},
		"progress token": {func(*testOptions) {}, progressEcho},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, u := maxCallsGateway(t, k, tc.tweak)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := holdSlow(ctx, t, streamClient(t, s, fastTestRevision), u, k-1)
			var callers []func() (string, bool, error)
			for i := range clients {
				rev := fastTestRevision
				if i%2 == 1 {
					rev = sdkDefaultRevision
				}
				callers = append(callers, tc.call(streamClient(t, s, rev)))
			}
			floodAtBound(t, s, k, callsEach, callers...)
			endHeld(t, cancel, ended, k-1)
		})
	}
}

// TestMaxCallsDeafClientIsHeldBack (reproduction: a client that sent 3,000
// echo calls over ConnectStream and read no answer made the server hold
// 3,025 goroutines with MaxCalls 8: once answered, a call no longer
// counted, so its unwritten answer, and the goroutine writing it, piled up
// without end). The session's input now waits while twice MaxCalls
// requests are unanswered: the client's writes stall after a few lines
// (those plus what the 64 KiB input buffer holds), the calls the server
// took stay bounded, and closing the client ends it all (goleak).
func TestMaxCallsDeafClientIsHeldBack(t *testing.T) {
	t.Parallel()
	const k, lines = 4, 300
	s, _ := maxCallsGateway(t, k)
	_, c := deafClient(t, s)
	pad := strings.Repeat("x", 8<<10)
	var written atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range lines {
			if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`+"\n", i+10, pad); err != nil {
				return
			}
			written.Add(1)
		}
	}()
	// With the input held back the writer never finishes; without, it
	// wrote every line well within this wait.
	select {
	case <-done:
		t.Errorf("the server read all %d calls of a client that reads no answer", written.Load())
	case <-time.After(2 * time.Second):
	}
	if n, most := written.Load(), int64(2*k+64<<10/len(pad)+4); n > most {
		t.Errorf("the server read %d calls of a client that reads no answer, want at most %d", n, most)
	}
	_ = c.Close()
	recvWithin(t, "the client's writer to end once closed", done)
}

// postBody POSTs body with the streamable HTTP headers and extra ones and
// returns the JSON-RPC messages of the answer (a JSON body, or every
// event of an event stream, a batch's array flattened).
func postBody(t *testing.T, url, body string, header map[string]string) []json.RawMessage {
	t.Helper()
	resp := doPost(t, url, body, header)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var chunks [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range bytes.Split(data, []byte("\n")) {
			if rest, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				chunks = append(chunks, rest)
			}
		}
	} else {
		chunks = [][]byte{data}
	}
	var msgs []json.RawMessage
	for _, c := range chunks {
		var batch []json.RawMessage
		if json.Unmarshal(c, &batch) == nil {
			msgs = append(msgs, batch...)
		} else if len(bytes.TrimSpace(c)) > 0 {
			msgs = append(msgs, c)
		}
	}
	return msgs
}

// TestMaxCallsBatchOverHTTP is TestMaxCallsBatchAtTheBound over
// streamable HTTP: a 2025-03-26 session's batch of 20 calls with one slot
// of three free never has more than three in flight, every busy result
// is counted once, and every other call echoes.
func TestMaxCallsBatchOverHTTP(t *testing.T) {
	t.Parallel()
	const k = 3
	s, u := maxCallsGateway(t, k)
	hs := httpServer(t, s, HTTPOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := holdSlow(ctx, t, newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, fastTestRevision).cs, u, k-1)
	code, sid := postJSON(t, hs.URL, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`, nil)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", code, sid)
	}
	h := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-03-26"}
	postJSON(t, hs.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	stop := peakSampler(s)
	msgs := postBody(t, hs.URL, echoBatch(0, 20), h)
	if peak := stop(); peak > k {
		t.Errorf("calls in flight peaked at %d, over MaxCalls %d", peak, k)
	}
	data, _ := json.Marshal(msgs)
	busy, ok := batchOutcomes(t, data, 20, fmt.Sprintf("maximum of %d calls at once", k))
	if got := s.Status().RefusedAtMax; got != int64(busy) {
		t.Errorf("refusedAtMax %d, the batch got %d busy results (%d echoed)", got, busy, ok)
	}
	endHeld(t, cancel, ended, k-1)
}

// TestMaxCallsStatelessAbortedPostFreesItsSlot (reproduction: over
// stateless HTTP a 2025-11-25 or 2025-06-18 client that gave up on a call
// ended its POST, but the call and its upstream request ran on until the
// upstream's timeout, holding its --max-calls slot: no
// notifications/cancelled can reach a call there, each POST being a
// session of its own). With MaxCalls 1, the end of the POST cancels the
// upstream call and the next call runs.
func TestMaxCallsStatelessAbortedPostFreesItsSlot(t *testing.T) {
	t.Parallel()
	for _, rev := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			s, u := maxCallsGateway(t, 1)
			hs := httpServer(t, s, HTTPOptions{Stateless: true})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			posted := make(chan struct{})
			go func() {
				defer close(posted)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", rev)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			recvWithin(t, "the slow call to reach the upstream", u.SlowStarted())
			cancel()
			recvWithin(t, "the client to give up", posted)
			recvWithin(t, "the upstream to see the cancellation", u.Cancelled())
			waitUntil(t, "no call in flight", func() bool { return s.Status().InFlight == 0 })
			if text, isErr, err := rawHTTPEcho(hs.URL, "")(); err != nil || isErr {
				t.Errorf("a call once the aborted one ended: %v %s", err, text)
			}
		})
	}
}
