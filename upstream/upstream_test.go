package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpctl/mcpctl/upstream"
)

func TestMain(m *testing.M) {
	if os.Getenv("MCPCTL_UPSTREAM_TEST_SERVER") == "fail" {
		// The test binary as a server that fails before initialize, as
		// npx does for a package that does not exist.
		fmt.Fprintln(os.Stderr, "npm error code E404")
		fmt.Fprintln(os.Stderr, "npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-filesytem")
		os.Exit(1)
	}
	if os.Getenv("MCPCTL_UPSTREAM_TEST_SERVER") == "1" {
		// The test binary as a stdio server: echo, exit to crash, and
		// stall to stop reading stdin (as a server whose event loop is
		// blocked).
		f := newFake()
		f.srv.AddTool(&mcp.Tool{Name: "exit", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
		in := &stallingStdin{File: os.Stdin}
		f.srv.AddTool(&mcp.Tool{Name: "stall", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in.stalled.Store(true)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stalled"}}}, nil
		})
		_ = f.srv.Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: os.Stdout})
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// stallingStdin is stdin until stalled is set: then it reads nothing more.
type stallingStdin struct {
	*os.File
	stalled atomic.Bool
}

func (s *stallingStdin) Read(p []byte) (int, error) {
	if s.stalled.Load() {
		select {} // the process is killed when the test is done with it
	}
	return s.File.Read(p)
}

// fake is an in-process go-sdk server the test changes, connected over
// in-memory transports (one server session per connection).
type fake struct {
	srv   *mcp.Server
	mu    sync.Mutex
	last  *mcp.ServerSession
	conns atomic.Int32
	// started receives once per blocking call the server began;
	// cancelled once per call whose context the server saw end.
	started, cancelled chan struct{}
}

func newFake() *fake {
	f := &fake{srv: mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, nil), started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8)}
	f.srv.AddTool(&mcp.Tool{Name: "echo", Description: "Echoes.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half"})
			}
			if args.Text == "block" {
				f.started <- struct{}{}
				<-ctx.Done()
				f.cancelled <- struct{}{}
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{IsError: args.Text == "fail", Content: []mcp.Content{&mcp.TextContent{Text: args.Text}},
				StructuredContent: map[string]any{"text": args.Text}, Meta: mcp.Meta{"x": "y"}}, nil
		})
	return f
}

func (f *fake) transport(t *testing.T) func() mcp.Transport {
	return func() mcp.Transport {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := f.srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Error(err)
		}
		f.mu.Lock()
		f.last = ss
		f.mu.Unlock()
		f.conns.Add(1)
		return ct
	}
}

// crash ends the server side of the latest connection.
func (f *fake) crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = f.last.Close()
}

func start(t *testing.T, f *fake, opts upstream.Options) *upstream.Upstream {
	t.Helper()
	opts.Name = "fake"
	opts.Transport = f.transport(t)
	u, err := upstream.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.Close)
	return u
}

func TestUpstreamListsRawBytesAndPassesResultsThrough(t *testing.T) {
	t.Parallel()
	u := start(t, newFake(), upstream.Options{})
	set := u.Tools()
	if len(set.Tools) != 1 || set.Tools[0].Name != "echo" {
		t.Fatalf("tools = %v", set.Names())
	}
	if got := string(set.Tools[0].Value.Get("inputSchema").Get("required").Items[0].Str); got != "text" {
		t.Errorf("inputSchema.required = %q", got)
	}
	res, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "fail"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	want := `{"_meta":{"x":"y"},"content":[{"type":"text","text":"fail"}],"structuredContent":{"text":"fail"},"isError":true}`
	if string(b) != want {
		t.Errorf("result = %s, want %s", b, want)
	}
}

func TestUpstreamListChangedCallsOnList(t *testing.T) {
	t.Parallel()
	f := newFake()
	listed := make(chan struct{}, 4)
	u := start(t, f, upstream.Options{OnList: func() { listed <- struct{}{} }})
	f.srv.AddTool(&mcp.Tool{Name: "more", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	<-listed
	if got := u.Tools().Names(); len(got) != 2 {
		t.Errorf("tools after list_changed = %v", got)
	}
	// A relist with the same bytes does not call OnList.
	u.Relist()
	u.Relist()
	f.srv.AddTool(&mcp.Tool{Name: "third", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	<-listed
	if got := u.Tools().Names(); len(got) != 3 {
		t.Errorf("tools = %v, want 3 (an OnList came for an unchanged list)", got)
	}
}

func TestUpstreamCrashUnavailableThenRestarted(t *testing.T) {
	t.Parallel()
	f := newFake()
	u := start(t, f, upstream.Options{MinBackoff: time.Hour})
	f.crash()
	for u.Status().State == upstream.StateConnected {
		time.Sleep(time.Millisecond)
	}
	_, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}, nil)
	if !errors.Is(err, upstream.ErrUnavailable) {
		t.Fatalf("call while down: %v, want ErrUnavailable", err)
	}
	if st := u.Status(); st.State != upstream.StateRestarting || st.Restarts != 0 {
		t.Errorf("status while down = %+v", st)
	}
}

func TestUpstreamRestartsWithBackoff(t *testing.T) {
	t.Parallel()
	f := newFake()
	u := start(t, f, upstream.Options{MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond})
	f.crash()
	for u.Status().Restarts == 0 {
		time.Sleep(time.Millisecond)
	}
	res, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "again"}}, nil)
	if err != nil || res.IsError {
		t.Fatalf("call after restart: %v %v", res, err)
	}
	if n := f.conns.Load(); n != 2 {
		t.Errorf("connections = %d, want 2", n)
	}
}

func TestUpstreamTimeoutCancelsTheUpstreamCall(t *testing.T) {
	t.Parallel()
	f := newFake()
	u := start(t, f, upstream.Options{Timeout: time.Second})
	_, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "block"}}, nil)
	if !errors.Is(err, upstream.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	<-f.cancelled // the server saw notifications/cancelled (the test hangs otherwise)
}

func TestUpstreamCallerCancelCancelsTheUpstreamCall(t *testing.T) {
	t.Parallel()
	f := newFake()
	u := start(t, f, upstream.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := u.Call(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "block"}}, nil)
		errc <- err
	}()
	<-f.started // cancelled before it is sent, a call never reaches the server
	cancel()
	<-f.cancelled
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestUpstreamRelaysProgressWithItsOwnToken(t *testing.T) {
	t.Parallel()
	u := start(t, newFake(), upstream.Options{})
	var got []*mcp.ProgressNotificationParams
	var mu sync.Mutex
	_, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}, func(p *mcp.ProgressNotificationParams) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	// The go-sdk may hand the notification over after the result.
	for n := 0; n == 0; {
		mu.Lock()
		n = len(got)
		mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Message != "half" || got[0].Total != 2 {
		t.Fatalf("progress = %+v", got)
	}
}

func TestUpstreamStdioServerRestartedAfterExit(t *testing.T) {
	t.Parallel()
	u, err := upstream.Start(context.Background(), upstream.Options{
		Name: "stdio", Command: []string{os.Args[0]}, Env: []string{"MCPCTL_UPSTREAM_TEST_SERVER=1"},
		MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if got := u.Tools().Names(); len(got) != 3 { // echo, exit, stall
		t.Fatalf("tools = %v", got)
	}
	if _, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "exit", Arguments: map[string]any{}}, nil); !errors.Is(err, upstream.ErrUnavailable) {
		t.Errorf("call that crashed the server: %v, want ErrUnavailable", err)
	}
	for u.Status().Restarts == 0 {
		time.Sleep(time.Millisecond)
	}
	res, err := u.Call(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "back"}}, nil)
	if err != nil || res.IsError {
		t.Fatalf("call after restart: %v %v", res, err)
	}
}

func TestUpstreamStartFailureIsTyped(t *testing.T) {
	t.Parallel()
	_, err := upstream.Start(context.Background(), upstream.Options{Name: "none", Command: []string{"/nonexistent/server"}, Timeout: time.Second})
	var ue *upstream.Error
	if !errors.As(err, &ue) || ue.Name != "none" {
		t.Fatalf("err = %v, want *upstream.Error naming the upstream", err)
	}
}

// TestUpstreamStartFailureSaysHowTheServerEnded: a stdio server that
// exited before initialize (npx for a misspelt package) failed to start
// with only `cannot start: calling "initialize": EOF`, its exit status and
// its standard error (at debug level in the log) nowhere an operator
// looks; mcpctl snapshot of the same command said both. Found by a
// newcomer helper. Now the error says them, as snapshot does.
func TestUpstreamStartFailureSaysHowTheServerEnded(t *testing.T) {
	t.Parallel()
	_, err := upstream.Start(context.Background(), upstream.Options{Name: "fs", Command: []string{os.Args[0]}, Env: []string{"MCPCTL_UPSTREAM_TEST_SERVER=fail"}, Timeout: 10 * time.Second})
	var ue *upstream.Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want *upstream.Error", err)
	}
	for _, want := range []string{"exit status 1", "npm error 404 Not Found"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("start error %q does not say %q", err, want)
		}
	}
}
