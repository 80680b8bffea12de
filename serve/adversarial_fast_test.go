package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Attacks on the fast path (fastcall.go, fastlines.go, fasthttp*.go): each
// sends real bytes to a gateway with the fast path and to the same gateway
// without it (hooks.noFastCalls), and wants the same answers.

// sameAnswers sends each line to a fresh session of s (the upstream p
// behind it) and returns the response to each, in order.
func sameAnswers(t *testing.T, s *Server, lines []string) []string {
	t.Helper()
	c := dialStream(t, s)
	c.initialize(true)
	waitUntil(t, "the session initialized", func() bool { return s.initializedForTest(c.ss) })
	var got []string
	for _, l := range lines {
		c.send(l)
		// The progress token the gateway sends upstream is its own
		// (mcpctl-<random>-<n>), random per gateway.
		got = append(got, ownToken.ReplaceAllString(string(c.recv()), "mcpctl-R-"))
	}
	return got
}

var ownToken = regexp.MustCompile(`mcpctl-[0-9a-f]+-`)

// TestAdversarialFastLinesReadsMembersAsTheGoSDK: the go-sdk reads a
// message's members by their exact names (its decoder matches struct
// fields case-sensitively), but the line filter read them with
// encoding/json, which also takes "NAME" for "name" (the last one wins).
// Reproduction, on stdio:
//
//	{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"meta","NAME":"echo",...}}
//
// the go-sdk calls "meta"; the fast path called "echo". Likewise a
// "Method" member turned a tools/list into a tools/call, a "_Meta" member
// hid the progress token the go-sdk relays, and a "RequestId" cancelled
// another call than the one named. Every such line is left to the go-sdk.
func TestAdversarialFastLinesReadsMembersAsTheGoSDK(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"meta","NAME":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","Method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"meta","arguments":{"message":"x"},"_meta":{"progressToken":"p","keep":"k"},"_Meta":{"keep":"k"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"meta","arguments":{"message":"x"},"Arguments":{"message":5}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"meta","name":"echo","arguments":{"message":"x"}}}`,
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
	for i, l := range got {
		if !strings.Contains(l, `"result"`) {
			t.Errorf("line %d: no result: %s", i+1, l)
		}
	}
}

// hostileUpstream is a stdio upstream written by hand: it answers
// initialize and tools/list as a server would, and a tools/call of its
// tool "reply" with the JSON its argument "raw" holds as the result
// bytes, whatever they are (as the error's when its argument "error" is
// true), in a batch of one (JSON-RPC 2.0 §6) when its argument "batch" is
// true.
func hostileUpstream(o *testOptions) {
	o.UpstreamBackoff = 10 * time.Millisecond
	o.upstreamPipe = func(string) func() (io.ReadWriteCloser, error) {
		return func() (io.ReadWriteCloser, error) {
			c, sc := net.Pipe()
			go serveHostile(sc)
			return c, nil
		}
	}
}

func serveHostile(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m handRequest
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		member := "result"
		if m.Params.Arguments.Error {
			member = "error"
		}
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,%q:%s}`, m.ID, member, m.result("2025-11-25", "hostile"))
		if m.Params.Arguments.Batch {
			resp = "[" + resp + "]"
		}
		if _, err := io.WriteString(c, resp+"\n"); err != nil {
			return
		}
	}
}

// handRequest is a request as the hand-written upstreams of these tests
// read it.
type handRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Arguments struct {
			Raw   string `json:"raw"`
			Batch bool   `json:"batch"`
			Error bool   `json:"error"` // raw is the response's error
		} `json:"arguments"`
	} `json:"params"`
}

// result is a hand-written upstream's result for m: initialize's (at
// protocol revision rev, as server name), a tools/list of the one tool
// "reply", a tools/call's argument "raw" as it is, {} for anything else.
func (m *handRequest) result(rev, name string) string {
	switch m.Method {
	case "initialize":
		return fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":%q,"version":"1"}}`, rev, name)
	case "tools/list":
		return `{"tools":[{"name":"reply","inputSchema":{"type":"object","properties":{"raw":{"type":"string"}}}}]}`
	case "tools/call":
		return m.Params.Arguments.Raw
	}
	return `{}`
}

// TestAdversarialFastUpstreamResultNotAnObject: an upstream whose
// tools/call result is not a CallToolResult object. Reproduction: the
// upstream answers {"jsonrpc":"2.0","id":"mcpctl-…-1","result":null}; the
// go-sdk path answers the client with an error, the fast path sent it
// "result":null (not a result MCP allows: 2025-11-25
// server/tools#calling-tools); a "content" that is not an array of known
// content blocks was passed on too. Every such answer now gets the go-sdk
// path's answer, error text and metrics. (A well-typed block missing a
// member, {"type":"text"}, is still passed on as it came.)
func TestAdversarialFastUpstreamResultNotAnObject(t *testing.T) {
	t.Parallel()
	replies := []string{`null`, `[]`, `"text"`, `5`, `true`, `{"content":"not an array"}`, `{"isError":"yes"}`, `{}`, `{"content":[{"type":"nope"}]}`, `{"content":[],"structuredContent":5}`, `{"content":[5]}`, `{"content":null}`}
	var lines []string
	for i, r := range replies {
		args, _ := json.Marshal(map[string]string{"raw": r})
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"reply","arguments":%s}}`, i+1, args))
	}
	fastRec, slowRec := filepath.Join(t.TempDir(), "fast"), filepath.Join(t.TempDir(), "slow")
	slow, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.RecordDir, o.noFastCalls = slowRec, true })
	fast, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.RecordDir = fastRec })
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
	if diff := cmp.Diff(callMetrics(t, slow), callMetrics(t, fast)); diff != "" {
		t.Errorf("metrics differ (-go-sdk path +fast path):\n%s", diff)
	}
	if n := fast.fastCalls.Load(); n != int64(len(lines)) {
		t.Errorf("the fast path took %d calls, want %d", n, len(lines))
	}
	fast.Close() // writes the queued records
	slow.Close()
	_, fastLog := recordedFile(t, fastRec)
	_, slowLog := recordedFile(t, slowRec)
	if diff := cmp.Diff(slowLog, fastLog); diff != "" || strings.Count(fastLog, "\n") != len(lines) {
		t.Errorf("--record differs (-go-sdk path +fast path):\n%s", diff)
	}
}

// TestAdversarialFastLinesSameIDWhileFastCallInFlight: a client reuses the
// id of a fast call still in flight. Reproduction, on stdio:
//
//	{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow",...}}   (taken by the fast path)
//	{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo",...}}
//
// The go-sdk path answers nothing to the second (nor to a ping, or a call
// with a progress token, reusing the id); with the fast path the go-sdk, which never saw the first,
// answered the second with a result for id 10, and its answer untracked
// the fast call's id (the end of input would then not wait for it).
func TestAdversarialFastLinesSameIDWhileFastCallInFlight(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	config := strings.Replace(probeGatewayConfig, "2s", "60s", 1)
	run := func(s *Server) []string {
		c := dialStream(t, s)
		c.initialize(true)
		waitUntil(t, "the session initialized", func() bool { return s.initializedForTest(c.ss) })
		c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow","arguments":{"message":"x"}}}`)
		recvWithin(t, "the slow call upstream", p.started)
		c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"message":"same id"}}}`)
		c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"_meta":{"progressToken":1}}}`)
		c.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
		c.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
		var got []string
		for {
			l := string(c.recv())
			got = append(got, l)
			if strings.Contains(l, `"id":99`) {
				break
			}
		}
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`)
		recvWithin(t, "the slow call cancelled upstream", p.cancelled)
		return got
	}
	slow, _ := startServer(t, config, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, config, p.pipe)
	want, got := run(slow), run(fast)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
}

// TestAdversarialFastLinesIDs: ids a client may write that the go-sdk
// writes back otherwise than as sent get the same answer on both paths.
// Reproduction: {"jsonrpc":"2.0","id":"\u0041",...tools/call...} got
// "id":"A" from the go-sdk path and "id":"\u0041" from the fast path; so
// did -0 (0), a string holding U+2028 (escaped by the go-sdk), and
// 999999999999999999 (which the go-sdk reads as a float64 and writes as
// 1000000000000000000; fixed by the strict reading of
// TestAdversarialFastLinesReadsMembersAsTheGoSDK, as over HTTP).
func TestAdversarialFastLinesIDs(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	ids := []string{`999999999999999999`, `9007199254740993`, `-0`, `"\u0041"`, `""`, `"` + strings.Repeat("x", 4096) + `"`, `-5`, `"<a>&"`, "\"line\u2028sep\u2029\"", `"é😀"`}
	var lines []string
	for _, id := range ids {
		lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`)
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
}

// TestAdversarialFastHTTPHostOfAnotherName: go-sdk refuses (403) a request
// to a loopback listener whose Host is not a loopback name (its DNS
// rebinding protection, MCP 2025-11-25 basic/security_best_practices);
// the HTTP fast path sits in front of go-sdk and answered it. Reproduction:
// a tools/call POST in an initialized session with "Host: evil.example"
// to 127.0.0.1 got 200 and the tool's result.
func TestAdversarialFastHTTPHostOfAnotherName(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	run := func(s *Server) (int, string) {
		hs := httpServer(t, s, HTTPOptions{})
		cs := fastClient(t, hs.URL, fastTestRevision)
		fastReady(t, s, cs)
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`
		req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("MCP-Protocol-Version", fastTestRevision)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	wantCode, wantBody := run(slow)
	gotCode, gotBody := run(fast)
	if wantCode != http.StatusForbidden || gotCode != wantCode || gotBody != wantBody {
		t.Errorf("Host evil.example: go-sdk path %d %q, fast path %d %q", wantCode, wantBody, gotCode, gotBody)
	}
	if n := fast.fastCalls.Load(); n != 0 {
		t.Errorf("the fast path took %d calls", n)
	}
}

// TestAdversarialFastLinesCancelWithMeta: a notifications/cancelled whose
// params carry _meta (which every notification's params may, MCP
// 2025-11-25 basic#meta) for a fast call in flight. Reproduction:
//
//	{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"_meta":{}}}
//
// was left to the go-sdk, which never saw the fast call: the call was not
// cancelled (the upstream's handler ran on), where the go-sdk path
// cancels it.
func TestAdversarialFastLinesCancelWithMeta(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	s, _ := startServer(t, strings.Replace(probeGatewayConfig, "2s", "60s", 1), p.pipe)
	c := dialStream(t, s)
	c.initialize(true)
	waitUntil(t, "the session initialized", func() bool { return s.initializedForTest(c.ss) })
	c.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"slow","arguments":{"message":"x"}}}`)
	recvWithin(t, "the slow call upstream", p.started)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"r","_meta":{"k":"v"}}}`)
	recvWithin(t, "the slow call cancelled upstream", p.cancelled)
	if n := s.fastCalls.Load(); n != 1 {
		t.Errorf("the fast path took %d calls, want 1", n)
	}
}

// TestAdversarialFastLinesArgumentsShapes: arguments null, absent, an
// array or a string, params with _meta null, and a name that is not a
// tool's get the go-sdk path's answers.
func TestAdversarialFastLinesArgumentsShapes(t *testing.T) {
	t.Parallel()
	p := newProbeUpstream()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":null}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"},"_meta":null}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x","message":"y"}}}`,
	}
	slow, _ := startServer(t, probeGatewayConfig, p.pipe, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, p.pipe)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers differ (-go-sdk path +fast path):\n%s", diff)
	}
}
