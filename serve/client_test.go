package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests with the go-sdk client (a client not written here): over the
// in-memory transport and over streamable HTTP, stateful and stateless, at
// the 2026-07-28 revision (server/discover + subscriptions/listen) and at
// 2025-11-25 (initialize).

// sdkClient is a go-sdk client session that counts list_changed.
type sdkClient struct {
	cs      *mcp.ClientSession
	changed chan struct{}
	count   atomic.Int64
}

func newSDKClient(t *testing.T, tr mcp.Transport, version string) *sdkClient {
	t.Helper()
	c := &sdkClient{changed: make(chan struct{}, 64)}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.count.Add(1)
			c.changed <- struct{}{}
		},
	})
	acked := watchSubscribed(client)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	cs, err := client.Connect(ctx, tr, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	c.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	waitSubscribed(t, cs, acked)
	return c
}

// watchSubscribed returns a channel closed when the server acknowledges
// client's subscriptions/listen (2026-07-28): only from then on does the
// server notify the subscription.
func watchSubscribed(client *mcp.Client) <-chan struct{} {
	acked := make(chan struct{})
	var once sync.Once
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				once.Do(func() { close(acked) })
			}
			return next(ctx, method, req)
		}
	})
	return acked
}

// waitSubscribed waits, for a 2026-07-28 session that subscribed to
// list_changed, until the server has acknowledged its subscriptions/listen:
// the go-sdk's Connect returns once the request is sent, and a change
// published before the server takes it is, rightly, told to no one
// (TestPinOverHTTP/in-memory_2026-07-28 missed its list_changed that way,
// 8 times in 300 on a loaded machine).
func waitSubscribed(t *testing.T, cs *mcp.ClientSession, acked <-chan struct{}) {
	t.Helper()
	res := cs.InitializeResult()
	if res == nil || res.ProtocolVersion < protocolSessionless {
		return
	}
	select {
	case <-acked:
	case <-time.After(waitLong):
		t.Fatal("the server did not acknowledge subscriptions/listen")
	}
}

func (c *sdkClient) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(waitLong):
		t.Fatal("no notifications/tools/list_changed")
	}
}

func (c *sdkClient) toolNames(t *testing.T) []string {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

const addedConfig = baseConfig + `  - name: list_documents
    inputSchema: {type: object}
    handler: {static: {text: listed}}
`

// exercise lists, rewrites the config, waits for list_changed, lists again
// and calls the new tool.
func exercise(t *testing.T, s *Server, path string, r *reloads, clients ...*sdkClient) {
	t.Helper()
	for _, c := range clients {
		if got := c.toolNames(t); len(got) != 2 {
			t.Fatalf("tools = %v, want 2", got)
		}
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), addedConfig)
	if r != nil {
		r.waitFor(t, "publishing", func(res ReloadResult) bool { return res.Trigger == "watch" && res.Result == ResultPublished })
	} else if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s", res.Result)
	}
	for _, c := range clients {
		c.waitChanged(t)
		if got := c.toolNames(t); len(got) != 3 {
			t.Fatalf("tools after the change = %v, want 3", got)
		}
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_documents", Arguments: map[string]any{}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "listed" {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
}

func TestGoSDKClientInMemory(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, path, r := watched(t, baseConfig)
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = ss.Close() })
			c := newSDKClient(t, ct, version)
			want := version
			if want == "" {
				want = "2026-07-28" // server/discover, then subscriptions/listen
			}
			if got := c.cs.InitializeResult().ProtocolVersion; got != want {
				t.Fatalf("negotiated %s, want %s", got, want)
			}
			exercise(t, s, path, r, c)
		})
	}
}

// httpServer serves s over streamable HTTP on a loopback test server.
func httpServer(t *testing.T, s *Server, o HTTPOptions) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(s.HTTPHandler(o))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		// Sessions whose clients never said goodbye (DELETE).
		for ss := range s.mcp.Sessions() {
			_ = ss.Close()
		}
	})
	return hs
}

func TestGoSDKClientHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		stateless bool
		version   string
		want      string
	}{
		{"stateful", false, "", "2025-11-25"}, // a stateful server declines 2026-07-28
		{"stateful 2025-06-18", false, "2025-06-18", "2025-06-18"},
		{"stateless 2026-07-28", true, "", "2026-07-28"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path, r := watched(t, baseConfig)
			hs := httpServer(t, s, HTTPOptions{Stateless: tc.stateless})
			c := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, tc.version)
			if got := c.cs.InitializeResult().ProtocolVersion; got != tc.want {
				t.Fatalf("negotiated %s, want %s", got, tc.want)
			}
			exercise(t, s, path, r, c)
		})
	}
}

func TestTwoHTTPSessionsOneNotificationEach(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig)
	hs := httpServer(t, s, HTTPOptions{})
	a := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "")
	b := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "")
	sent := s.notifier.sent.Load()
	for i := 1; i <= 3; i++ {
		cfg := strings.Replace(baseConfig, "Keyword search.", "Keyword search, take "+string(rune('0'+i))+".", 1)
		writeFile(t, filepath.Dir(path), filepath.Base(path), cfg)
		if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished || !res.Changed {
			t.Fatalf("reload %d: %s", i, res.Result)
		}
		a.waitChanged(t)
		b.waitChanged(t)
	}
	settle(t, s)
	// Every send has completed: the server delivered exactly one per
	// session per change, and each client saw exactly that many.
	if got := s.notifier.sent.Load() - sent; got != 6 {
		t.Errorf("server sent %d notifications, want 6 (2 sessions × 3 changes)", got)
	}
	if a.count.Load() != 3 || b.count.Load() != 3 {
		t.Errorf("clients saw %d and %d notifications, want 3 each", a.count.Load(), b.count.Load())
	}
}

func TestHTTPSecurity(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	hs := httpServer(t, s, HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}, Token: "s3cret", MaxBodyBytes: 1024})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		name   string
		origin string
		token  string
		body   string
		want   int
	}{
		{"no token", "", "", body, http.StatusUnauthorized},
		{"wrong token", "", "s3cret!", body, http.StatusUnauthorized},
		{"good token", "", "s3cret", body, http.StatusOK},
		{"allowed origin", "https://app.example.com", "s3cret", body, http.StatusOK},
		{"other origin", "https://evil.example.com", "s3cret", body, http.StatusForbidden},
		{"body too large", "", "s3cret", strings.Replace(body, `"x"`, `"`+strings.Repeat("x", 2000)+`"`, 1), http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}
