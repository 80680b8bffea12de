package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client that stops reading must not block the reload path nor another
// session's notification.
func TestStalledClientBlocksNothing(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig, func(o *testOptions) { o.NotifyTimeout = waitLong })
	// The stalled session: initialized, then nobody reads what the server
	// writes (the pipe has no buffer, so the first write blocks).
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	stalled, err := s.Connect(context.Background(), &mcp.IOTransport{Reader: toServerR, Writer: fromServerW})
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(fromServerR)
	io.WriteString(toServerW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stalled","version":"0"}}}`+"\n")
	if _, err := rd.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(toServerW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	defer func() {
		// Unblock the stalled writer, then close.
		go io.Copy(io.Discard, fromServerR)
		toServerW.Close()
		_ = stalled.Close()
		fromServerR.Close()
	}()

	live := connected(t, s)
	for i := 1; i <= 3; i++ {
		cfg := strings.Replace(baseConfig, "Keyword search.", "Keyword search"+strings.Repeat(" again", i)+".", 1)
		writeFile(t, filepath.Dir(path), filepath.Base(path), cfg)
		done := make(chan ReloadResult)
		go func() { done <- s.Reload(context.Background(), "test") }()
		select {
		case res := <-done:
			if res.Result != ResultPublished {
				t.Fatalf("reload %d: %s", i, res.Result)
			}
		case <-time.After(waitLong):
			t.Fatalf("reload %d blocked behind a stalled client", i)
		}
		// The healthy session gets its notification while the stalled one
		// is still blocked.
		for {
			l := live.recv()
			if strings.Contains(string(l), "list_changed") {
				break
			}
		}
	}
}

// An in-flight call finishes with the generation it started with; the
// generation's resources are released only after it returns.
func TestInFlightCallKeepsItsGeneration(t *testing.T) {
	t.Parallel()
	entered := make(chan string, 1)
	unblock := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- r.URL.Path
		<-unblock
		io.WriteString(w, "answered by "+r.URL.Path)
	}))
	defer backend.Close()
	cfg := func(route string) string {
		return `tools:
  - name: slow
    inputSchema: {type: object}
    handler: {http: {url: "` + backend.URL + route + `", timeout: 60s}}
`
	}
	var mu sync.Mutex
	var released []uint64
	s, path := startServer(t, cfg("/v1"), func(o *testOptions) {
		o.onRelease = func(g *Generation) {
			mu.Lock()
			released = append(released, g.Version)
			mu.Unlock()
		}
	})
	c := connected(t, s)
	callDone := make(chan wireMsg)
	go func() {
		c.nextID++
		callDone <- c.call("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	}()
	if got := <-entered; got != "/v1" {
		t.Fatalf("first call reached %s", got)
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), cfg("/v2"))
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s %v %v", res.Result, res.Errors, res.Findings)
	}
	mu.Lock()
	if len(released) != 0 {
		t.Errorf("generation released while its call is in flight: %v", released)
	}
	mu.Unlock()
	close(unblock)
	res := recvWithin(t, "the in-flight call", callDone)
	var r struct {
		Content []struct{ Text string }
	}
	_ = json.Unmarshal(res.Result, &r)
	if len(r.Content) != 1 || r.Content[0].Text != "answered by /v1" {
		t.Errorf("in-flight call result %s, want the old generation's handler", res.Result)
	}
	mu.Lock()
	if len(released) != 1 || released[0] != 1 {
		t.Errorf("released %v after the last call returned, want [1]", released)
	}
	mu.Unlock()
	// New calls use the new generation.
	go func() { <-entered }()
	res2 := c.call("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
	if !strings.Contains(string(res2.Result), "/v2") {
		t.Errorf("new call: %s", res2.Result)
	}
}

// slowToolServer serves one tool, slow, whose handler answers "done" once
// unblock is closed; entered receives when a call reaches the handler.
func slowToolServer(t *testing.T) (s *Server, entered <-chan struct{}, unblock chan struct{}) {
	t.Helper()
	in := make(chan struct{}, 1)
	unblock = make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in <- struct{}{}
		select {
		case <-unblock:
			io.WriteString(w, "done")
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(backend.Close)
	s, _ = startServer(t, `tools:
  - name: slow
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`"}}
`)
	return s, in, unblock
}

// SIGTERM (ctx cancelled) lets in-flight calls finish, then Run returns.
func TestShutdownDrainsInFlightCalls(t *testing.T) {
	t.Parallel()
	s, entered, unblock := slowToolServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error)
	go func() {
		runDone <- s.Run(ctx, RunOptions{Stdin: inR, Stdout: outW, ShutdownTimeout: waitLong})
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	defer func() { inW.Close(); outR.Close() }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`+"\n")
	recvWithin(t, "the initialize answer", lines)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
	recvWithin(t, "the call to start", entered)
	cancel() // SIGTERM
	waitUntil(t, "the drain to start", s.draining.Load)
	// Draining: a new call is refused, the in-flight one continues, and Run
	// has not returned.
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
	if refused := recvWithin(t, "the answer to a call while draining", lines); !strings.Contains(refused, `"id":3`) || !strings.Contains(refused, "shutting down") {
		t.Errorf("a call while draining answered %s", refused)
	}
	select {
	case <-runDone:
		t.Fatal("Run returned before the in-flight call finished")
	default:
	}
	close(unblock)
	var resp string
	select {
	case resp = <-lines:
	case <-time.After(waitLong):
		t.Fatal("the in-flight call never answered")
	}
	if !strings.Contains(resp, `"id":2`) || !strings.Contains(resp, "done") {
		t.Errorf("in-flight call answered %s", resp)
	}
	select {
	case err := <-runDone:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(waitLong):
		t.Fatal("Run did not return after the drain")
	}
}

// TestShutdownDrainsInFlightHTTPCall: over streamable HTTP too, a call in
// flight at SIGTERM is answered before the sessions close (the SDK writes
// the response after the call returns).
func TestShutdownDrainsInFlightHTTPCall(t *testing.T) {
	t.Parallel()
	s, entered, unblock := slowToolServer(t)
	addr := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() {
		runDone <- s.Run(ctx, RunOptions{HTTPAddr: "127.0.0.1:0", ShutdownTimeout: waitLong,
			OnListen: func(_, a string) { addr <- a }})
	}()
	c := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: "http://" + <-addr + MCPPath}, "")
	callDone := make(chan *mcp.CallToolResult, 1)
	callErr := make(chan error, 1)
	go func() {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		callErr <- err
		callDone <- res
	}()
	recvWithin(t, "the call to start", entered)
	cancel() // SIGTERM
	waitUntil(t, "the drain to start", s.draining.Load)
	close(unblock)
	select {
	case err := <-callErr:
		if err != nil {
			t.Fatalf("the in-flight call failed: %v", err)
		}
		res := recvWithin(t, "the in-flight call's result", callDone)
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "done" {
			t.Errorf("in-flight call answered isError=%v %q, want \"done\"", res.IsError, text)
		}
	case <-time.After(waitLong):
		t.Fatal("the in-flight call never answered")
	}
	select {
	case err := <-runDone:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(waitLong):
		t.Fatal("Run did not return after the drain")
	}
}

// A stdout nobody reads does not keep Run from returning.
func TestShutdownWithBlockedStdout(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error)
	go func() { runDone <- s.Run(ctx, RunOptions{Stdin: inR, Stdout: outW, ShutdownTimeout: time.Second}) }()
	rd := bufio.NewReader(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`+"\n")
	if _, err := rd.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	// A change makes the server write a notification nobody reads.
	writeFile(t, filepath.Dir(path), filepath.Base(path), addedConfig)
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s", res.Result)
	}
	cancel()
	select {
	case err := <-runDone:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(waitLong):
		t.Fatal("Run blocked on a stdout nobody reads")
	}
	// Release the blocked writer so the test leaves no goroutine behind.
	go io.Copy(io.Discard, outR)
	inW.Close()
	settle(t, s)
	outR.Close()
}
