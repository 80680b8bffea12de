package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/clock"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
)

// Session pinning (docs/serve.md#active-conversations-pinning). Pins expire
// through the fake clock (clocktest.Fake): the test moves its time or fires
// its timers; nothing here waits for, or asserts, a wall-clock time.

// nextConfig keeps search_documents, removes fetch_document (breaking: the
// tests publish it with AllowBreaking) and adds list_documents.
const nextConfig = removedConfig + `  - name: list_documents
    inputSchema: {type: object}
    handler: {static: {text: listed}}
`

// releases records released generations' versions.
type releases struct {
	mu  sync.Mutex
	all []uint64
	ch  chan uint64
}

func newReleases() *releases { return &releases{ch: make(chan uint64, 64)} }

func (r *releases) hook(o *testOptions) {
	o.onRelease = func(g *Generation) {
		r.mu.Lock()
		r.all = append(r.all, g.Version)
		r.mu.Unlock()
		r.ch <- g.Version
	}
}

func (r *releases) list() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.all)
}

func (r *releases) waitFor(t *testing.T, version uint64) {
	t.Helper()
	deadline := time.After(waitLong)
	for {
		select {
		case v := <-r.ch:
			if v == version {
				return
			}
		case <-deadline:
			t.Fatalf("generation %d was never released (released: %v)", version, r.list())
		}
	}
}

func pinning(o *testOptions) { o.PinSessions = true; o.AllowBreaking = true }

// publish rewrites the config and reloads; the result must be a published
// change.
func publish(t *testing.T, s *Server, path, config string) ReloadResult {
	t.Helper()
	writeFile(t, filepath.Dir(path), filepath.Base(path), config)
	res := s.Reload(context.Background(), "test")
	if res.Result != ResultPublished || !res.Changed {
		t.Fatalf("reload = %s changed=%v %v", res.Result, res.Changed, res.Errors)
	}
	return res
}

// callText calls a tool and returns the text of its successful result.
func callText(t *testing.T, c *rawClient, name string, args any) string {
	t.Helper()
	res, msg := callTool(t, c, name, args)
	if msg != nil {
		t.Fatalf("protocol error: %s", *msg)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("call result: %+v", res)
	}
	return res.Content[0].Text
}

func metricsText(t *testing.T, s *Server) string {
	t.Helper()
	hs := httptest.NewServer(s.AdminHandler(AdminOptions{}))
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestPinnedSessionKeepsItsGeneration(t *testing.T) {
	t.Parallel()
	clk := clocktest.New(testNow)
	rel := newReleases()
	s, path := startServer(t, baseConfig, pinning, withClock(clk), rel.hook)
	a := connected(t, s)
	if l := a.list(); l.Meta.Gen.Version != 1 {
		t.Fatalf("first list: version %d", l.Meta.Gen.Version)
	}
	publish(t, s, path, nextConfig)

	// The pinned session is not told (its list did not change), lists and
	// calls generation 1, including the tool generation 2 removed.
	if n := a.countListChanged(s); n != 0 {
		t.Errorf("pinned session got %d list_changed at a publish, want 0", n)
	}
	l := a.list()
	if diff := cmp.Diff([]string{"fetch_document", "search_documents"}, l.names()); diff != "" || l.Meta.Gen.Version != 1 {
		t.Errorf("pinned list (version %d) mismatch (-want +got):\n%s", l.Meta.Gen.Version, diff)
	}
	if got := callText(t, a, "fetch_document", map[string]any{"id": "x"}); got != "fetched" {
		t.Errorf("pinned call of a removed tool = %q", got)
	}
	if got := rel.list(); len(got) != 0 {
		t.Errorf("generations released while pinned: %v", got)
	}

	// A new session sees generation 2 and cannot call the removed tool.
	b := connected(t, s)
	l = b.list()
	if diff := cmp.Diff([]string{"list_documents", "search_documents"}, l.names()); diff != "" || l.Meta.Gen.Version != 2 {
		t.Errorf("new session's list (version %d) mismatch (-want +got):\n%s", l.Meta.Gen.Version, diff)
	}
	if _, msg := callTool(t, b, "fetch_document", map[string]any{"id": "x"}); msg == nil {
		t.Error("new session could call a tool its generation removed")
	}
	if got := callText(t, b, "list_documents", map[string]any{}); got != "listed" {
		t.Errorf("new session's call = %q", got)
	}

	st := s.Status()
	if diff := cmp.Diff(map[string]int{"1": 1, "2": 1}, st.Sessions.Pinned); diff != "" {
		t.Errorf("status pinned mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"1": 1, "2": 1}, st.Sessions.ByGeneration); diff != "" {
		t.Errorf("status byGeneration mismatch (-want +got):\n%s", diff)
	}
	if m := metricsText(t, s); !strings.Contains(m, "\nmcpctl_serve_pinned_sessions 2\n") {
		t.Errorf("metrics lack mcpctl_serve_pinned_sessions 2")
	}

	// The TTL passes for a (its timer fires): it moves to generation 2 and
	// is told once; generation 1 is released.
	if clk.Timers() != 2 {
		t.Fatalf("%d pin timers started, want 2", clk.Timers())
	}
	if due := clk.Due(0); !due.Equal(testNow.Add(DefaultPinTTL)) {
		t.Fatalf("the pin timer is due at %v, want the session's start + DefaultPinTTL (%v)", due, testNow.Add(DefaultPinTTL))
	}
	clk.Fire(t, 0)
	if n := a.countListChanged(s); n != 1 {
		t.Errorf("got %d list_changed at pin expiry, want 1", n)
	}
	if l := a.list(); l.Meta.Gen.Version != 2 {
		t.Errorf("after expiry the session lists version %d, want 2", l.Meta.Gen.Version)
	}
	if _, msg := callTool(t, a, "fetch_document", map[string]any{"id": "x"}); msg == nil {
		t.Error("after expiry the session still calls the removed tool")
	}
	rel.waitFor(t, 1)
	clk.Fire(t, 0) // a late second firing does nothing
	if n := a.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed from a second firing, want 0", n)
	}
	if b.countListChanged(s) != 0 {
		t.Error("the session pinned to the live generation was notified")
	}
	// Unpinned now: the next publish notifies it as usual.
	publish(t, s, path, strings.Replace(nextConfig, "Keyword search.", "Keyword search, again.", 1))
	if n := a.countListChanged(s); n != 1 {
		t.Errorf("unpinned session got %d list_changed at a publish, want 1", n)
	}
	if got := s.Status().Sessions.Pinned; !cmp.Equal(got, map[string]int{"2": 1}) {
		t.Errorf("status pinned = %v, want map[2:1]", got)
	}
}

// An expired pin is noticed on the session's next request (Options.Clock),
// even when its timer has not fired.
func TestPinExpiresOnNextRequest(t *testing.T) {
	t.Parallel()
	clk := clocktest.New(testNow)
	s, path := startServer(t, baseConfig, pinning, withClock(clk), func(o *testOptions) { o.PinTTL = time.Minute })
	a := connected(t, s)
	publish(t, s, path, nextConfig)
	clk.Advance(59 * time.Second)
	if l := a.list(); l.Meta.Gen.Version != 1 {
		t.Fatalf("before the TTL the session lists version %d, want 1", l.Meta.Gen.Version)
	}
	clk.Advance(time.Second)
	if l := a.list(); l.Meta.Gen.Version != 2 {
		t.Errorf("after the TTL the session lists version %d, want 2", l.Meta.Gen.Version)
	}
	if n := a.countListChanged(s); n != 1 {
		t.Errorf("got %d list_changed at lazy expiry, want 1", n)
	}
	clk.Fire(t, 0) // the timer comes late: nothing more
	if n := a.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed from the late timer, want 0", n)
	}
}

// A pin whose generation is still the live one expires silently.
func TestPinExpiryWithoutChangeIsSilent(t *testing.T) {
	t.Parallel()
	clk := clocktest.New(testNow)
	s, _ := startServer(t, baseConfig, pinning, withClock(clk))
	a := connected(t, s)
	clk.Fire(t, 0)
	if n := a.countListChanged(s); n != 0 {
		t.Errorf("got %d list_changed for an expiry without change, want 0", n)
	}
	if s.pinned.Load() != 0 {
		t.Errorf("%d pinned after expiry", s.pinned.Load())
	}
}

// The real timer (clock.System) moves an idle session and the go-sdk
// client is told.
func TestPinTimerMovesIdleSession(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig, pinning, func(o *testOptions) { o.PinTTL = 50 * time.Millisecond; o.Clock = clock.System })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := newSDKClient(t, ct, "2025-11-25")
	publish(t, s, path, nextConfig)
	// Whether the timer fired before or after the publish, the session
	// ends up on generation 2, told exactly once.
	c.waitChanged(t)
	settle(t, s)
	if err := c.cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := c.count.Load(); n != 1 {
		t.Errorf("client saw %d list_changed, want 1", n)
	}
	if diff := cmp.Diff([]string{"list_documents", "search_documents"}, c.toolNames(t)); diff != "" {
		t.Errorf("tools after expiry mismatch (-want +got):\n%s", diff)
	}
}

// A session that ends releases its pin: the pinned generation is released.
func TestPinReleasedWhenSessionEnds(t *testing.T) {
	t.Parallel()
	clk := clocktest.New(testNow)
	rel := newReleases()
	s, path := startServer(t, baseConfig, pinning, withClock(clk), rel.hook)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	c := newSDKClient(t, ct, "2025-11-25")
	publish(t, s, path, nextConfig)
	if got := c.toolNames(t); !slices.Contains(got, "fetch_document") {
		t.Fatalf("pinned client lists %v", got)
	}
	if got := rel.list(); len(got) != 0 {
		t.Fatalf("released %v while pinned", got)
	}
	_ = c.cs.Close()
	_ = ss.Close()
	rel.waitFor(t, 1)
	if s.pinned.Load() != 0 {
		t.Errorf("%d sessions still pinned", s.pinned.Load())
	}
	if !clk.Stopped(0) {
		t.Error("the expiry timer of the ended session was not stopped")
	}
}

// Over stateful streamable HTTP a session is pinned; over stateless HTTP,
// and for 2026-07-28 clients, nothing is.
func TestPinOverHTTP(t *testing.T) {
	t.Parallel()
	t.Run("stateful", func(t *testing.T) {
		t.Parallel()
		clk := clocktest.New(testNow)
		s, path := startServer(t, baseConfig, pinning, withClock(clk))
		hs := httpServer(t, s, HTTPOptions{})
		a := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "")
		sent := s.notifier.sent.Load()
		publish(t, s, path, nextConfig)
		if diff := cmp.Diff([]string{"fetch_document", "search_documents"}, a.toolNames(t)); diff != "" {
			t.Errorf("pinned HTTP session's tools mismatch (-want +got):\n%s", diff)
		}
		res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_document", Arguments: map[string]any{"id": "x"}})
		if err != nil || res.IsError {
			t.Errorf("pinned call of a removed tool: %v %+v", err, res)
		}
		b := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "")
		if diff := cmp.Diff([]string{"list_documents", "search_documents"}, b.toolNames(t)); diff != "" {
			t.Errorf("new HTTP session's tools mismatch (-want +got):\n%s", diff)
		}
		settle(t, s)
		if got := s.notifier.sent.Load() - sent; got != 0 {
			t.Errorf("server sent %d list_changed while every session was pinned, want 0", got)
		}
		clk.Fire(t, 0)
		a.waitChanged(t)
		settle(t, s)
		if got := s.notifier.sent.Load() - sent; got != 1 {
			t.Errorf("server sent %d list_changed after one expiry, want 1", got)
		}
		if diff := cmp.Diff([]string{"list_documents", "search_documents"}, a.toolNames(t)); diff != "" {
			t.Errorf("tools after expiry mismatch (-want +got):\n%s", diff)
		}
	})
	for _, tc := range []struct {
		name    string
		version string
	}{{"stateless 2025-11-25", "2025-11-25"}, {"stateless 2026-07-28", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := clocktest.New(testNow)
			s, path := startServer(t, baseConfig, pinning, withClock(clk))
			hs := httpServer(t, s, HTTPOptions{Stateless: true})
			c := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, tc.version)
			if got := c.toolNames(t); len(got) != 2 {
				t.Fatalf("tools = %v", got)
			}
			publish(t, s, path, nextConfig)
			if diff := cmp.Diff([]string{"list_documents", "search_documents"}, c.toolNames(t)); diff != "" {
				t.Errorf("stateless client's tools mismatch (-want +got):\n%s", diff)
			}
			if n := clk.Timers(); n != 0 || s.pinned.Load() != 0 {
				t.Errorf("stateless requests pinned: %d timers, %d pinned", n, s.pinned.Load())
			}
		})
	}
	t.Run("in-memory 2026-07-28", func(t *testing.T) {
		t.Parallel()
		s, path := startServer(t, baseConfig, pinning)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ss.Close() })
		c := newSDKClient(t, ct, "")
		publish(t, s, path, nextConfig)
		c.waitChanged(t)
		if diff := cmp.Diff([]string{"list_documents", "search_documents"}, c.toolNames(t)); diff != "" {
			t.Errorf("2026-07-28 client's tools mismatch (-want +got):\n%s", diff)
		}
		if s.pinned.Load() != 0 {
			t.Errorf("a 2026-07-28 session was pinned")
		}
	})
}

// Without --pin-sessions nothing is pinned: a session sees each publish.
func TestNoPinningByDefault(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig, func(o *testOptions) { o.AllowBreaking = true })
	a := connected(t, s)
	publish(t, s, path, nextConfig)
	if n := a.countListChanged(s); n != 1 {
		t.Errorf("got %d list_changed, want 1", n)
	}
	if l := a.list(); l.Meta.Gen.Version != 2 {
		t.Errorf("lists version %d, want 2", l.Meta.Gen.Version)
	}
	if len(s.Status().Sessions.Pinned) != 0 {
		t.Error("status shows pinned sessions")
	}
}
