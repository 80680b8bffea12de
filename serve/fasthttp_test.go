package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
)

// fakeFast is the FastCall of the tests: it answers the tools of results
// (name → CallToolResult JSON) and declines every other one; the tool
// "block" waits until its context ends and answers a JSON-RPC error.
type fakeFast struct {
	results map[string]string

	mu        sync.Mutex
	calls     []fastSeen
	started   chan string // ids of "block" calls, as they start
	cancelled chan string // ids of "block" calls, as their context ends
}

type fastSeen struct{ Session, ID, Params string }

func newFakeFast(results map[string]string) *fakeFast {
	return &fakeFast{results: results, started: make(chan string, 16), cancelled: make(chan string, 16)}
}

func (f *fakeFast) call(ctx context.Context, sid string, id, params json.RawMessage) ([]byte, bool) {
	var p struct{ Name string }
	if err := json.Unmarshal(params, &p); err != nil {
		panic(err) // the middleware hands only plain params
	}
	if p.Name == "block" {
		f.note(sid, id, params)
		f.started <- string(id)
		<-ctx.Done()
		f.cancelled <- string(id)
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32800,"message":"cancelled"}}`, id), true
	}
	res, ok := f.results[p.Name]
	if !ok {
		return nil, false
	}
	f.note(sid, id, params)
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res), true
}

func (f *fakeFast) note(sid string, id, params json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fastSeen{sid, string(id), string(params)})
}

func (f *fakeFast) seen() []fastSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fastSeen(nil), f.calls...)
}

// fastText is the result the fake answers for the tool "free" (which the
// server itself answers "ok").
const fastText = `{"content":[{"type":"text","text":"from the fast path"}]}`

// fastClient connects a go-sdk streamable client at version ("" : the
// newest) to url.
func fastClient(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// fastReady waits until the server has taken the session's
// notifications/initialized (the go-sdk client sends it without waiting).
func fastReady(t *testing.T, s *Server, cs *mcp.ClientSession) {
	t.Helper()
	waitUntil(t, "the session initialized", func() bool {
		_, _, ok := s.initializedSession(cs.ID())
		return ok
	})
}

func fastCallText(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"a": 1}})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return resultText(res)
}

// The go-sdk streamable client takes the fast path's application/json
// answer; a call the fast path declines, tools/list, and every call of a
// stateless 2026-07-28 client are go-sdk's.
func TestFastHTTPGoSDKClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		stateless bool
		version   string
		fast      bool // whether the fake serves "free"
	}{
		{"stateful 2025-11-25", false, "2025-11-25", true},
		{"stateful 2025-06-18", false, "2025-06-18", true},
		{"stateful 2025-03-26 (batches allowed: go-sdk)", false, "2025-03-26", false},
		{"stateless 2025-11-25", true, "2025-11-25", true},
		{"stateless 2026-07-28 (go-sdk)", true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := startServer(t, freeConfig)
			fake := newFakeFast(map[string]string{"free": fastText})
			hs := httpServer(t, s, HTTPOptions{Stateless: tc.stateless, fastCall: fake.call})
			cs := fastClient(t, hs.URL, tc.version)
			if !tc.stateless {
				fastReady(t, s, cs)
			}
			want := "ok"
			if tc.fast {
				want = "from the fast path"
			}
			if got := fastCallText(t, cs, "free"); got != want {
				t.Fatalf("free answered %q, want %q", got, want)
			}
			if res, err := cs.ListTools(context.Background(), nil); err != nil || len(res.Tools) != 1 {
				t.Fatalf("tools/list: %v %v", res, err)
			}
			var wantSeen []fastSeen
			if tc.fast {
				sid := cs.ID()
				if tc.stateless {
					sid = ""
				}
				wantSeen = []fastSeen{{sid, fake.seen()[0].ID, `{"name":"free","arguments":{"a":1}}`}}
			}
			if d := cmp.Diff(wantSeen, fake.seen()); d != "" {
				t.Errorf("fast calls mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// rawPost posts body to url with the headers of a go-sdk client of the
// session (sid, rev), then edits; it returns status, Content-Type and
// body.
func rawPost(t *testing.T, url, sid, rev, body string, edit func(http.Header)) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("MCP-Protocol-Version", rev)
	if edit != nil {
		edit(req.Header)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// Hostile or unusual POSTs get exactly the answer they get without the
// fast path, and never reach it.
func TestFastHTTPFallsThroughUnchanged(t *testing.T) {
	t.Parallel()
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	plain := call("1", `{"name":"free","arguments":{}}`)
	for _, tc := range []struct {
		name string
		body string
		edit func(http.Header)
	}{
		{"huge body", call("1", `{"name":"free","arguments":{"x":"`+strings.Repeat("a", 4096)+`"}}`), nil},
		{"batch", "[" + plain + "]", nil},
		{"invalid JSON", plain[:len(plain)-3], nil},
		{"trailing data", plain + "{}", nil},
		{"duplicate member", `{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"free"}}`, nil},
		{"duplicate param", call("1", `{"name":"nope","name":"free"}`), nil},
		{"no jsonrpc", `{"id":1,"method":"tools/call","params":{"name":"free"}}`, nil},
		{"unknown member", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"free"},"x":1}`, nil},
		{"null id", call("null", `{"name":"free"}`), nil},
		{"fractional id", call("1.5", `{"name":"free"}`), nil},
		{"id beyond 2^53", call("9007199254740993", `{"name":"free"}`), nil},
		{"_meta protocol version", call("1", `{"name":"free","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`), nil},
		{"arguments not an object", call("1", `{"name":"free","arguments":[1]}`), nil},
		{"name not a string", call("1", `{"name":7}`), nil},
		{"progress token", call("1", `{"name":"free","_meta":{"progressToken":"p"}}`), nil},
		{"empty body", "", nil},
		{"wrong content type", plain, func(h http.Header) { h.Set("Content-Type", "text/plain") }},
		{"content type with a bad parameter", plain, func(h http.Header) { h.Set("Content-Type", "application/json; charset") }},
		{"accept json only", plain, func(h http.Header) { h.Set("Accept", "application/json") }},
		{"no protocol version", plain, func(h http.Header) { h.Del("MCP-Protocol-Version") }},
		{"unsupported protocol version", plain, func(h http.Header) { h.Set("MCP-Protocol-Version", "2024-01-01") }},
		{"other protocol version", plain, func(h http.Header) { h.Set("MCP-Protocol-Version", "2025-06-18") }},
		{"unknown session", plain, func(h http.Header) { h.Set("Mcp-Session-Id", "NOSUCHSESSION") }},
		{"Last-Event-ID", plain, func(h http.Header) { h.Set("Last-Event-ID", "x_1") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			answers := [2]string{}
			for i, withFast := range []bool{false, true} {
				s, _ := startServer(t, freeConfig)
				fake := newFakeFast(map[string]string{"free": fastText})
				o := HTTPOptions{MaxBodyBytes: 1024}
				if withFast {
					o.fastCall = fake.call
				}
				hs := httpServer(t, s, o)
				cs := fastClient(t, hs.URL, "2025-11-25")
				fastReady(t, s, cs)
				code, ct, body := rawPost(t, hs.URL, cs.ID(), "2025-11-25", tc.body, tc.edit)
				answers[i] = fmt.Sprintf("%d %s\n%s", code, ct, body)
				if n := len(fake.seen()); n != 0 {
					t.Errorf("the fast path took %d calls", n)
				}
			}
			if d := cmp.Diff(answers[0], answers[1]); d != "" {
				t.Errorf("answer with the fast path differs (-without +with):\n%s", d)
			}
		})
	}
}

// A session that sent initialize but not notifications/initialized is
// go-sdk's (which serves the call itself), not the fast path's.
func TestFastHTTPUninitializedSession(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(map[string]string{"free": fastText})
	hs := httpServer(t, s, HTTPOptions{fastCall: fake.call})
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	_, _, body := rawPost(t, hs.URL, sid, "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"free"}}`, nil)
	if !strings.Contains(body, `"text":"ok"`) || len(fake.seen()) != 0 {
		t.Fatalf("uninitialized session: fast calls %v, answer %s", fake.seen(), body)
	}
}

// A second call with the id of a fast call in flight is refused as go-sdk
// refuses it; notifications/cancelled and DELETE end a fast call.
func TestFastHTTPInFlight(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(nil)
	hs := httpServer(t, s, HTTPOptions{fastCall: fake.call})
	cs := fastClient(t, hs.URL, "2025-11-25")
	fastReady(t, s, cs)
	sid := cs.ID()
	block := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block"}}`
	first := make(chan string, 1)
	go func() {
		_, _, body := rawPost(t, hs.URL, sid, "2025-11-25", block, nil)
		first <- body
	}()
	recvWithin(t, "the first call", fake.started)
	code, _, body := rawPost(t, hs.URL, sid, "2025-11-25", block, nil)
	want := `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"duplicate in-flight request ID 7"}}`
	if code != http.StatusBadRequest || body != want {
		t.Fatalf("duplicate id: %d %s, want 400 %s", code, body, want)
	}
	// A call go-sdk would serve (a progress token) and another method with
	// that id are refused alike (go-sdk, which never saw the fast call,
	// answered them).
	for _, other := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"free","_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
	} {
		if code, _, body := rawPost(t, hs.URL, sid, "2025-11-25", other, nil); code != http.StatusBadRequest || body != want {
			t.Errorf("duplicate id in %s: %d %s, want 400 %s", other, code, body, want)
		}
	}
	code, _, _ = rawPost(t, hs.URL, sid, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, nil)
	if code != http.StatusAccepted {
		t.Fatalf("cancel answered %d, want 202", code)
	}
	recvWithin(t, "the cancellation", fake.cancelled)
	recvWithin(t, "the first answer", first)

	go func() {
		_, _, body := rawPost(t, hs.URL, sid, "2025-11-25", block, nil)
		first <- body
	}()
	recvWithin(t, "the call before DELETE", fake.started)
	deleteSession(t, hs.URL, sid)
	recvWithin(t, "the cancellation by DELETE", fake.cancelled)
	recvWithin(t, "the answer after DELETE", first)
	if code, ct, body := rawPost(t, hs.URL, sid, "2025-11-25", block, nil); code != http.StatusNotFound {
		t.Fatalf("a call on the deleted session answered %d %s %s, want go-sdk's 404", code, ct, body)
	}
}

// A call after a DELETE answered 204 is go-sdk's 404, also while the
// server has not yet noticed that the session ended (its notifier forgets
// a session once the session's Wait returns, in a goroutine of its own):
// the fast path took such a call, a go-sdk call on a session that no
// longer exists. Seen as TestFastHTTPInFlight's "a call on the deleted
// session answered 200" in 1 of 9 go test -race -short runs of ./serve
// ./upstream ./internal/mcpclient ./serveconfig beside go test ./...
// (load 9 on 2 cores), the 200 the fake's cancelled error (the go-sdk
// client's own DELETE, refused 404, cancelled the fast call); here the
// notifier is held until the call was answered.
func TestFastHTTPNoCallAfterDelete(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	t.Cleanup(release)
	s, _ := startServer(t, freeConfig, func(o *testOptions) { o.sessionEnded = func() { <-hold } })
	fake := newFakeFast(map[string]string{"free": fastText})
	hs := httpServer(t, s, HTTPOptions{fastCall: fake.call})
	cs := fastClient(t, hs.URL, "2025-11-25")
	fastReady(t, s, cs)
	deleteSession(t, hs.URL, cs.ID())
	code, _, body := rawPost(t, hs.URL, cs.ID(), "2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"free"}}`, nil)
	release()
	if code != http.StatusNotFound || len(fake.seen()) != 0 {
		t.Errorf("a call on the deleted session: %d %s, fast calls %v; want go-sdk's 404 and none", code, body, fake.seen())
	}
}

// The go-sdk client's own cancellation (its context ends) reaches the
// fast call.
func TestFastHTTPClientCancels(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(nil)
	hs := httpServer(t, s, HTTPOptions{fastCall: fake.call})
	cs := fastClient(t, hs.URL, "2025-11-25")
	fastReady(t, s, cs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
		done <- err
	}()
	recvWithin(t, "the call", fake.started)
	cancel()
	recvWithin(t, "the cancellation", fake.cancelled)
	if err := recvWithin(t, "the client's return", done); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
}

// go-sdk restarts a session's idle timer only for requests it serves: a
// session that made only fast calls was closed after SessionTimeout
// (every call then 404, "session not found"). A call on a session go-sdk
// has not served for half the timeout goes to go-sdk.
//
// The go-sdk's idle timer runs on the wall clock, so the property holds
// for a client that calls often enough: each call ends within a quarter
// of the timeout after the one before (then a call goes to go-sdk at most
// 3/4 of the timeout after go-sdk served the last). A session that expired
// when a call came later than that (the test sleeps a tenth of the
// timeout between calls) proves nothing and is tried again with a new
// one; one that expired with every call in time fails the test. (It
// failed with "standalone SSE stream: exceeded 0 retries" in 2 of 6 go
// test -race -short runs of ./serve ./upstream ./internal/mcpclient
// ./serveconfig beside go test ./... and another helper's tests, load 10
// on 2 cores, once at -cpu 1: the client stalled past the timeout.)
func TestFastHTTPKeepsSessionAlive(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(map[string]string{"free": fastText})
	const timeout = time.Second
	hs := httpServer(t, s, HTTPOptions{SessionTimeout: timeout, fastCall: fake.call})
	for attempt := 1; ; attempt++ {
		cs := fastClient(t, hs.URL, "2025-11-25")
		fastReady(t, s, cs)
		answers := map[string]int{}
		var late time.Duration // the longest a call ended after the one before
		prev := time.Now()
		var err error
		for range 40 {
			time.Sleep(timeout / 10)
			var res *mcp.CallToolResult
			res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: map[string]any{"a": 1}})
			now := time.Now()
			late, prev = max(late, now.Sub(prev)), now
			if err != nil {
				break
			}
			answers[resultText(res)]++
		}
		switch {
		case err != nil && late > timeout/4 && attempt < 5:
			t.Logf("attempt %d: a call came %v after the one before, and the session expired (%v): again", attempt, late, err)
			continue
		case err != nil:
			t.Fatalf("call free (attempt %d, calls at most %v apart): %v", attempt, late, err)
		case answers["from the fast path"] == 0 || answers["ok"] == 0:
			t.Fatalf("answers %v: want both the fast path's and go-sdk's", answers)
		}
		return
	}
}

// The fast path sits behind every protection of the listener: a plain
// call without the bearer token, or from an Origin not allowed, is
// refused before it, and one with them is its.
func TestFastHTTPBehindProtections(t *testing.T) {
	t.Parallel()
	const token = "fast-path-token-1"
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(map[string]string{"free": fastText})
	hs := httpServer(t, s, HTTPOptions{Token: token, AllowedOrigins: []string{"https://ok.example"}, fastCall: fake.call})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: hs.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: mcpclient.WithHeaders(nil, http.Header{"Authorization": {"Bearer " + token}})},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	fastReady(t, s, cs)
	plain := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"free"}}`
	for _, tc := range []struct {
		name string
		edit func(http.Header)
		want int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", func(h http.Header) { h.Set("Authorization", "Bearer nope") }, http.StatusUnauthorized},
		{"origin not allowed", func(h http.Header) {
			h.Set("Authorization", "Bearer "+token)
			h.Set("Origin", "https://evil.example")
		}, http.StatusForbidden},
		{"allowed", func(h http.Header) {
			h.Set("Authorization", "Bearer "+token)
			h.Set("Origin", "https://ok.example")
		}, http.StatusOK},
	} {
		code, _, body := rawPost(t, hs.URL, cs.ID(), "2025-11-25", plain, tc.edit)
		if code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	if n := len(fake.seen()); n != 1 {
		t.Errorf("the fast path took %d calls, want the allowed one", n)
	}
}

// On a stateless server every request stands alone: two clients' calls
// with the same id are both served (the fast path held ids under the
// session "" and refused the second as a duplicate).
func TestFastHTTPStatelessSameIDs(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, freeConfig)
	fake := newFakeFast(nil)
	hs := httpServer(t, s, HTTPOptions{Stateless: true, fastCall: fake.call})
	block := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block"}}`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 2)
	for range 2 {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL, strings.NewReader(block))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	recvWithin(t, "the first call", fake.started)
	recvWithin(t, "the second call", fake.started)
	cancel()
	recvWithin(t, "a cancellation", fake.cancelled)
	recvWithin(t, "a cancellation", fake.cancelled)
	recvWithin(t, "a return", done)
	recvWithin(t, "a return", done)
}

// deleteSession ends the session sid with a DELETE, which must be
// answered 204.
func deleteSession(t *testing.T, url, sid string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE answered %d", resp.StatusCode)
	}
}
