package upstream_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// lineServer is an MCP server written by hand over one end of a net.Pipe
// (stdio framing), so a test controls every byte it answers: tools/call
// {"mode": "twice"} is answered twice, {"mode": "never"} never, anything
// else with its arguments as text.
type lineServer struct {
	mu        sync.Mutex
	ids       []json.RawMessage // ids of the tools/call requests read
	cancelled chan json.RawMessage
	conns     []net.Conn
	// initDelay holds each answer to initialize this long (a server slow
	// to start: an npx download, a runtime's cold start).
	initDelay time.Duration
	// stopped is closed by close (once: the wait of initDelay ends).
	stopped  chan struct{}
	stopOnce sync.Once
}

func newLineServer() *lineServer {
	return &lineServer{cancelled: make(chan json.RawMessage, 8), stopped: make(chan struct{})}
}

func (s *lineServer) dial() (io.ReadWriteCloser, error) {
	c, sc := net.Pipe()
	s.mu.Lock()
	s.conns = append(s.conns, sc)
	s.mu.Unlock()
	go s.serve(sc)
	return c, nil
}

// close ends the server: its connections, and an answer it holds.
func (s *lineServer) close() {
	s.stopOnce.Do(func() { close(s.stopped) })
	s.crash()
}

// crash closes the connections open now; the next dial serves again.
func (s *lineServer) crash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		_ = c.Close()
	}
}

func (s *lineServer) serve(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			return
		}
		for _, line := range s.answer(m.ID, m.Method, m.Params) {
			if _, err := c.Write([]byte(line + "\n")); err != nil {
				return
			}
		}
	}
}

func (s *lineServer) answer(id json.RawMessage, method string, params json.RawMessage) []string {
	reply := func(result string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result) }
	switch method {
	case "initialize":
		s.mu.Lock()
		delay := s.initDelay
		s.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-s.stopped:
			return nil
		}
		return []string{reply(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"lines","version":"1"}}`)}
	case "tools/list":
		return []string{reply(`{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)}
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(params, &p)
		s.cancelled <- p.RequestID
		return nil
	case "tools/call":
		s.mu.Lock()
		s.ids = append(s.ids, id)
		s.mu.Unlock()
		var p struct {
			Arguments struct{ Mode string } `json:"arguments"`
		}
		_ = json.Unmarshal(params, &p)
		res := reply(fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, p.Arguments.Mode))
		switch p.Arguments.Mode {
		case "never":
			return nil
		case "twice":
			return []string{res, reply(`{"content":[{"type":"text","text":"second"}]}`)}
		}
		return []string{res}
	}
	if id != nil {
		return []string{reply(`{}`)}
	}
	return nil
}

func startLines(t *testing.T, s *lineServer, timeout time.Duration) *upstream.Upstream {
	t.Helper()
	u, err := upstream.Start(context.Background(), upstream.Options{Name: "lines", Pipe: s.dial, Timeout: timeout, MinBackoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.Close)
	return u
}

// rawID is what CallRaw's request ids look like: a string with a random
// part, never an integer (the go-sdk client's ids).
var rawID = regexp.MustCompile(`^"mcpctl-[0-9a-f]{16}-[0-9]+"$`)

func TestUpstreamCallRawAnsweredTwiceKeepsTheFirst(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	u := startLines(t, s, 0)
	res, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"t","arguments":{"mode":"twice"}}`))
	if err != nil || !strings.Contains(string(res), `"twice"`) {
		t.Fatalf("CallRaw = %s, %v", res, err)
	}
	// The second answer was dropped, not handed to the go-sdk (which would
	// take an unknown id for a broken peer): the connection still serves.
	if err := u.Refresh(context.Background()); err != nil {
		t.Fatalf("tools/list after a doubled answer: %v", err)
	}
	res, err = u.CallRaw(context.Background(), json.RawMessage(`{"name":"t","arguments":{"mode":"again"}}`))
	if err != nil || !strings.Contains(string(res), `"again"`) {
		t.Fatalf("CallRaw after a doubled answer = %s, %v", res, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.ids {
		if !rawID.Match(id) {
			t.Errorf("raw call id %s, want %v", id, rawID)
		}
	}
}

func TestUpstreamCallRawNeverAnsweredTimesOutAndCancels(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	u := startLines(t, s, 100*time.Millisecond)
	_, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"t","arguments":{"mode":"never"}}`))
	if !errors.Is(err, upstream.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	select {
	case id := <-s.cancelled:
		s.mu.Lock()
		sent := s.ids[len(s.ids)-1]
		s.mu.Unlock()
		if string(id) != string(sent) {
			t.Errorf("notifications/cancelled for %s, want %s", id, sent)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server got no notifications/cancelled")
	}
}

func TestUpstreamCallRawConnectionLostIsUnavailable(t *testing.T) {
	t.Parallel()
	s := newLineServer()
	u := startLines(t, s, 0)
	errc := make(chan error, 1)
	go func() {
		_, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"t","arguments":{"mode":"never"}}`))
		errc <- err
	}()
	for {
		s.mu.Lock()
		n := len(s.ids)
		s.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.close()
	if err := <-errc; !errors.Is(err, upstream.ErrUnavailable) {
		t.Fatalf("call cut by the connection's end: %v, want ErrUnavailable", err)
	}
	if _, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"t"}`)); !errors.Is(err, upstream.ErrUnavailable) {
		t.Fatalf("call while down: %v, want ErrUnavailable", err)
	}
}

// TestUpstreamCallRawStdio: the stdio server (this test binary) answers a
// raw call with its result bytes; a call that kills it is ErrUnavailable.
func TestUpstreamCallRawStdio(t *testing.T) {
	t.Parallel()
	u, err := upstream.Start(context.Background(), upstream.Options{
		Name: "stdio", Command: []string{os.Args[0]}, Env: []string{"MCPCTL_UPSTREAM_TEST_SERVER=1"},
		MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	res, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"echo","arguments":{"text":"raw ✓"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got mcp.CallToolResult
	if err := json.Unmarshal(res, &got); err != nil || got.StructuredContent.(map[string]any)["text"] != "raw ✓" || got.Meta["x"] != "y" {
		t.Fatalf("result %s (%v)", res, err)
	}
	if _, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"exit","arguments":{}}`)); !errors.Is(err, upstream.ErrUnavailable) {
		t.Errorf("call that crashed the server: %v, want ErrUnavailable", err)
	}
}

// TestUpstreamProgressTokensUnguessable: the progress token a call carries
// upstream has a random part, different per upstream, so a server cannot
// send progress for another call by counting (they were "mcpctl-1",
// "mcpctl-2", …).
func TestUpstreamProgressTokensUnguessable(t *testing.T) {
	t.Parallel()
	token := func() string {
		f := newFake()
		var tok string
		f.srv.AddTool(&mcp.Tool{Name: "token", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok, _ = req.Params.GetProgressToken().(string)
			return &mcp.CallToolResult{}, nil
		})
		u := start(t, f, upstream.Options{})
		if _, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "token", Arguments: map[string]any{}}, func(*mcp.ProgressNotificationParams) {}); err != nil {
			t.Fatal(err)
		}
		return tok
	}
	a, b := token(), token()
	shape := regexp.MustCompile(`^mcpctl-([0-9a-f]{16})-1$`)
	ma, mb := shape.FindStringSubmatch(a), shape.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		t.Fatalf("progress tokens %q, %q: want %v", a, b, shape)
	}
	if ma[1] == mb[1] {
		t.Errorf("two upstreams share the token prefix %s", ma[1])
	}
}

// TestUpstreamCallRawStdioStalled: a call to a stdio server that stopped
// reading its stdin ends with ErrTimeout at the upstream's timeout, and
// the server is restarted. Reproduction: after the server's "stall" call,
// a call whose request (1 MiB) outgrows the stdin pipe's buffer blocked in
// its write, past the timeout and for as long as the server lived; so did
// every later call, queued behind that write.
//
// Each start of the server (this race-instrumented test binary under
// -race) took 350-700ms on a loaded machine (load 9 on 2 cores); while
// Timeout bounded the start too, a 500ms Timeout failed the test at its
// start in 16 of 30 runs. Starts now have StartTimeout (default 60s).
func TestUpstreamCallRawStdioStalled(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second
	u, err := upstream.Start(context.Background(), upstream.Options{
		Name: "stdio", Command: []string{os.Args[0]}, Env: []string{"MCPCTL_UPSTREAM_TEST_SERVER=1"},
		MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, Timeout: timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if _, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"stall","arguments":{}}`)); err != nil {
		t.Fatal(err)
	}
	big := json.RawMessage(`{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 1<<20) + `"}}`)
	for i := 1; i <= 2; i++ {
		done := make(chan error, 1)
		go func() {
			_, err := u.CallRaw(context.Background(), big)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, upstream.ErrTimeout) && !errors.Is(err, upstream.ErrUnavailable) || i == 1 && !errors.Is(err, upstream.ErrTimeout) {
				t.Fatalf("call %d to the stalled server: %v, want ErrTimeout", i, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("call %d to the stalled server: no answer after 20s (its timeout is %v)", i, timeout)
		}
	}
	// The write that broke a line closed the connection: a new server
	// process answers.
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := u.CallRaw(context.Background(), json.RawMessage(`{"name":"echo","arguments":{"text":"back"}}`))
		if err == nil && strings.Contains(string(res), "back") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restarted server answered: %s %v", res, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
