package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
)

func TestMain(m *testing.M) {
	http.DefaultTransport = keepIdle{testTransport}
	goleak.VerifyTestMain(removeBuilt{m})
}

// testTransport is http.DefaultTransport while the tests run, behind
// keepIdle. The tests run in parallel, their clients (the go-sdk's
// streamable client among them) use http.DefaultTransport, and
// httptest.Server.Close closes its idle connections: a request of
// another test then failed, once, with "http: CloseIdleConnections
// called" (TestFastHTTPFallsThroughUnchanged/fractional_id under -race in
// a clean-clone CI run). removeBuilt closes them when every test is done.
var testTransport = http.DefaultTransport.(*http.Transport).Clone()

// keepIdle is a RoundTripper without CloseIdleConnections, which
// httptest.Server.Close therefore leaves alone.
type keepIdle struct{ http.RoundTripper }

// waitLong bounds event-driven waits; it is generous on purpose (slow CI
// machines, -race), and never a measurement.
const waitLong = 20 * time.Second

// waitUntil polls cond until it holds, failing the test if it does not
// within waitLong.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitLong, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// recvWithin receives from ch, failing the test if nothing comes within
// waitLong.
func recvWithin[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLong):
		t.Fatalf("timed out after %v waiting for %s", waitLong, what)
	}
	var zero T
	return zero
}

// writeFile writes content to dir/name (creating folders).
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// testNow is the time of the fake clock startServer gives a server.
var testNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// withClock makes c the server's clock: the test moves its time and fires
// its timers (pin expiry, blue/green retirement).
func withClock(c *clocktest.Fake) func(*testOptions) {
	return func(o *testOptions) { o.Clock = c }
}

// startServer writes config to a temporary folder and starts a Server on
// it. The server is closed at cleanup.
func startServer(t testing.TB, config string, tweak ...func(*testOptions)) (*Server, string) {
	t.Helper()
	dir := t.TempDir()
	path := writeFile(t, dir, "mcpctl.serve.yaml", config)
	o := testOptions{Options: Options{ConfigPath: path, Clock: clocktest.New(testNow)}}
	for _, f := range tweak {
		f(&o)
	}
	s, err := newTestServer(context.Background(), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(s.Close)
	return s, path
}

// rawClient speaks newline-delimited JSON-RPC to a Server over a pipe pair
// (the stdio transport's framing) and sees the server's exact bytes.
type rawClient struct {
	t      testing.TB
	w      *io.PipeWriter
	lines  chan []byte
	nextID int
	// notes are notifications (and other unmatched messages) read while
	// waiting for a response, in arrival order.
	notes [][]byte
	done  chan struct{}
	ss    *mcp.ServerSession
}

func dialRaw(t testing.TB, s *Server) *rawClient {
	t.Helper()
	return dialRawWith(t, func(r io.ReadCloser, w io.WriteCloser) (*mcp.ServerSession, error) {
		return s.Connect(context.Background(), &mcp.IOTransport{Reader: r, Writer: w})
	})
}

// dialStream is dialRaw through Server.ConnectStream (the line transport
// with the fast path, as stdio).
func dialStream(t testing.TB, s *Server) *rawClient {
	t.Helper()
	return dialRawWith(t, func(r io.ReadCloser, w io.WriteCloser) (*mcp.ServerSession, error) {
		return s.ConnectStream(context.Background(), struct {
			io.Reader
			io.Writer
			io.Closer
		}{r, w, w})
	})
}

func dialRawWith(t testing.TB, connect func(io.ReadCloser, io.WriteCloser) (*mcp.ServerSession, error)) *rawClient {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	ss, err := connect(toServerR, fromServerW)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, w: toServerW, lines: make(chan []byte, 1024), done: make(chan struct{}), ss: ss}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(fromServerR)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		toServerW.Close()
		_ = ss.Close()
		fromServerR.Close()
		recvWithin(t, "the client's reader to end", c.done)
	})
	return c
}

// send writes one raw message.
func (c *rawClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, msg+"\n"); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// recv returns the next message from the server.
func (c *rawClient) recv() []byte {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("connection closed")
		}
		return l
	case <-time.After(waitLong):
		c.t.Fatal("no message from the server")
	}
	return nil
}

type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a request and returns its response, keeping any other message
// in c.notes.
func (c *rawClient) call(method string, params any) wireMsg {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := json.Marshal(req)
	c.send(string(b))
	for {
		line := c.recv()
		var m wireMsg
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("bad message %s: %v", line, err)
		}
		if string(m.ID) == fmt.Sprint(id) && m.Method == "" {
			return m
		}
		c.notes = append(c.notes, line)
	}
}

func (c *rawClient) notify(method string) {
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q}`, method))
}

// initialize performs the handshake; with initialized false it stops after
// the initialize response.
func (c *rawClient) initialize(initialized bool) wireMsg {
	c.t.Helper()
	r := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}})
	if r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	if initialized {
		c.notify("notifications/initialized")
	}
	return r
}

// countListChanged waits until every notification the server has queued
// is written, then uses a ping as a barrier (messages on one connection
// arrive in order) and returns how many list_changed notifications arrived
// since the last count.
func (c *rawClient) countListChanged(s *Server) int {
	c.t.Helper()
	settle(c.t, s)
	c.call("ping", nil)
	n := 0
	for _, l := range c.notes {
		if strings.Contains(string(l), `"notifications/tools/list_changed"`) {
			n++
		}
	}
	c.notes = nil
	return n
}

// settle waits for the notifier's senders to finish.
func settle(t testing.TB, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := s.notifier.flight.wait(ctx); err != nil {
		t.Fatal("notifications never finished sending")
	}
}

// listed is a tools/list result.
type listed struct {
	Meta struct {
		Gen struct {
			Version     uint64 `json:"version"`
			Fingerprint string `json:"fingerprint"`
		} `json:"io.mcpctl/generation"`
	} `json:"_meta"`
	Tools []json.RawMessage `json:"tools"`
}

func (c *rawClient) list() listed {
	c.t.Helper()
	r := c.call("tools/list", nil)
	if r.Error != nil {
		c.t.Fatalf("tools/list: %s", r.Error.Message)
	}
	var l listed
	if err := json.Unmarshal(r.Result, &l); err != nil {
		c.t.Fatal(err)
	}
	return l
}

func (l listed) names() []string {
	var out []string
	for _, t := range l.Tools {
		var x struct{ Name string }
		_ = json.Unmarshal(t, &x)
		out = append(out, x.Name)
	}
	return out
}

// reloads collects reload results (its hook sets hooks.onReload).
type reloads struct {
	mu  sync.Mutex
	all []ReloadResult
	ch  chan ReloadResult
}

func newReloads() *reloads { return &reloads{ch: make(chan ReloadResult, 1024)} }

func (r *reloads) hook(o *testOptions) {
	o.onReload = func(res ReloadResult) {
		r.mu.Lock()
		r.all = append(r.all, res)
		r.mu.Unlock()
		r.ch <- res
	}
}

// watchReady closes ready once Watch has set up its watches.
func watchReady(ready chan struct{}) func(*testOptions) {
	return func(o *testOptions) { o.watchReady = func() { close(ready) } }
}

// waitFor waits for a reload result matching pred.
func (r *reloads) waitFor(t testing.TB, what string, pred func(ReloadResult) bool) ReloadResult {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case res := <-r.ch:
			if pred(res) {
				return res
			}
		case <-deadline:
			t.Fatalf("no reload %s", what)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a logger writing from the call
// goroutines while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// initializedForTest reports whether the server has taken ss's
// notifications/initialized.
func (s *Server) initializedForTest(ss *mcp.ServerSession) bool {
	st := s.notifier.state(ss)
	return st != nil && s.notifier.isInitialized(st)
}
