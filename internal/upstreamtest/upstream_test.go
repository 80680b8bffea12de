package upstreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpctl/mcpctl/canon"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// guard bounds every wait so a broken kit fails instead of hanging; it is
// not a timing assertion.
const guard = 10 * time.Second

// client is a go-sdk client session with its notifications as channels.
type client struct {
	cs       *mcp.ClientSession
	changed  chan struct{}
	progress chan *mcp.ProgressNotificationParams
}

func newClient() (*mcp.Client, *client) {
	c := &client{changed: make(chan struct{}, 64), progress: make(chan *mcp.ProgressNotificationParams, 64)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "kit-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { c.changed <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			c.progress <- r.Params
		},
	})
	return mc, c
}

func connect(t *testing.T, u *Upstream) *client {
	t.Helper()
	mc, c := newClient()
	cs, err := u.Connect(t.Context(), mc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(guard):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

func call(t *testing.T, c *client, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return m
}

func TestEchoReturnsArgumentsAsStructuredContentAndText(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	c := connect(t, u)
	args := map[string]any{"message": "hi", "mode": "loud"}
	res := call(t, c, "echo", args)
	if res.IsError {
		t.Fatalf("isError: %v", res.Content)
	}
	if d := cmp.Diff(args, structured(t, res)); d != "" {
		t.Errorf("structured content mismatch (-want +got):\n%s", d)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil || !cmp.Equal(args, got) {
		t.Errorf("text = %s, want the arguments' JSON", text)
	}
	if u.Calls() != 1 {
		t.Errorf("Calls() = %d, want 1", u.Calls())
	}
}

func TestProgressNotificationsWhenTokenGiven(t *testing.T) {
	t.Parallel()
	u := New(&Options{ProgressSteps: 4}, DefaultTools()...)
	c := connect(t, u)
	p := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"n": 2}}
	p.SetProgressToken("tok-1")
	if _, err := c.cs.CallTool(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		n := wait(t, c.progress, "progress notification")
		if n.ProgressToken != "tok-1" || n.Progress != float64(i) || n.Total != 4 {
			t.Errorf("notification %d = %+v", i, n)
		}
	}
	call(t, c, "count", map[string]any{"n": 1}) // no token: no notification
	select {
	case n := <-c.progress:
		t.Errorf("progress without a token: %+v", n)
	default:
	}
}

func TestSlowToolHonoursCancellation(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	c := connect(t, u)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: SlowTool, Arguments: map[string]any{}})
		done <- err
	}()
	wait(t, u.SlowStarted(), "slow call start")
	cancel()
	if err := wait(t, done, "cancelled call's return"); !errors.Is(err, context.Canceled) {
		t.Errorf("call error = %v, want context.Canceled", err)
	}
	if got := wait(t, u.Cancelled(), "upstream cancellation"); got != SlowTool {
		t.Errorf("cancelled %q", got)
	}
}

// TestChangesNotifyAndReshape: every kind of change sends list_changed, is
// visible in tools/list, and the old call shape is refused afterwards.
func TestChangesNotifyAndReshape(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	c := connect(t, u)
	steps := []struct {
		name    string
		change  func() error
		oldCall map[string]any // refused after the change (nil: none)
		check   func(tools map[string]*mcp.Tool) bool
	}{
		{"rename", func() error { return u.RenameProperty("echo", "message", "text") },
			map[string]any{"message": "hi"},
			func(ts map[string]*mcp.Tool) bool {
				return hasProp(ts["echo"], "text") && !hasProp(ts["echo"], "message")
			}},
		{"enum", func() error { return u.NarrowEnum("echo", "/properties/mode", "plain") },
			map[string]any{"text": "hi", "mode": "loud"},
			func(ts map[string]*mcp.Tool) bool { return ts["echo"] != nil }},
		{"description", func() error { return u.SetDescription("count", "Count, differently.") }, nil,
			func(ts map[string]*mcp.Tool) bool { return ts["count"].Description == "Count, differently." }},
		{"remove", func() error { return u.Remove("count") }, nil,
			func(ts map[string]*mcp.Tool) bool { return ts["count"] == nil }},
		{"add", func() error {
			return u.Add(&mcp.Tool{Name: "fresh", InputSchema: map[string]any{"type": "object"}})
		}, nil, func(ts map[string]*mcp.Tool) bool { return ts["fresh"] != nil }},
	}
	for _, s := range steps {
		if err := s.change(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		wait(t, c.changed, s.name+" list_changed")
		if ts := list(t, c); !s.check(ts) {
			t.Errorf("%s: tools/list does not show the change", s.name)
		}
		if s.oldCall != nil && !call(t, c, "echo", s.oldCall).IsError {
			t.Errorf("%s: old call %v accepted", s.name, s.oldCall)
		}
	}
	if res := call(t, c, "echo", map[string]any{"text": "hi", "mode": "plain"}); res.IsError {
		t.Errorf("new shape refused: %v", res.Content[0])
	}
}

func list(t *testing.T, c *client) map[string]*mcp.Tool {
	t.Helper()
	res, err := c.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		m[tool.Name] = tool
	}
	return m
}

func hasProp(t *mcp.Tool, name string) bool {
	data, _ := json.Marshal(t.InputSchema)
	var s struct{ Properties map[string]any }
	_ = json.Unmarshal(data, &s)
	_, ok := s.Properties[name]
	return ok
}

func TestChangeErrorsAreTyped(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"no tool", u.SetDescription("nope", "x"), ErrNoTool},
		{"remove no tool", u.Remove("nope"), ErrNoTool},
		{"no property", u.RenameProperty("echo", "nope", "x"), ErrNoProperty},
		{"bad pointer", u.NarrowEnum("echo", "properties/mode", "x"), canon.ErrPointer},
		{"pointer past a leaf", u.NarrowEnum("echo", "/properties/mode/type/x", "x"), ErrBadChange},
		{"unknown op", u.Apply(Change{Op: "explode"}), ErrBadChange},
		{"schema not an object", u.Add(&mcp.Tool{Name: "x", InputSchema: []any{}}), ErrBadChange},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, c.err, c.want)
		}
	}
}

// TestCrashEndsSessionsAndAcceptsNewOnes. Reproduction of a hang (1 run in
// 30 under -race) before Connect pinned ProtocolVersion: the client opened
// subscriptions/listen (2026-07-28) and Crash's ServerSession.Close waited
// for it.
func TestCrashEndsSessionsAndAcceptsNewOnes(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	c := connect(t, u)
	u.Crash()
	waited := make(chan error, 1)
	go func() { waited <- c.cs.Wait() }()
	wait(t, waited, "session end after Crash")
	c2 := connect(t, u)
	if res := call(t, c2, "echo", map[string]any{"message": "again"}); res.IsError {
		t.Errorf("call after restart: %v", res.Content[0])
	}
}

// TestMainFollowsControlFileAndCrashes runs the stdio program in process:
// changes appended to the control file reach the client as list_changed, a
// restart re-applies them (but not an earlier crash) before it serves, a
// crash line exits 3. Reproduction: "restarted program lost the rename"
// (11 runs in 40 under -race) while the first application of the file ran
// beside the server instead of before it.
func TestMainFollowsControlFileAndCrashes(t *testing.T) {
	t.Parallel()
	control := filepath.Join(t.TempDir(), "control.jsonl")
	c, exit := runMain(t, control)
	if err := AppendChange(control, Change{Op: OpRename, Tool: "echo", Old: "message", New: "text"}); err != nil {
		t.Fatal(err)
	}
	wait(t, c.changed, "list_changed from the control file")
	if !hasProp(list(t, c)["echo"], "text") {
		t.Fatal("rename not applied")
	}
	if err := AppendChange(control, Change{Op: OpCrash}); err != nil {
		t.Fatal(err)
	}
	if code := wait(t, exit, "exit after crash"); code != ExitCrash {
		t.Fatalf("exit code %d, want %d", code, ExitCrash)
	}
	c2, exit2 := runMain(t, control)
	if !hasProp(list(t, c2)["echo"], "text") {
		t.Error("restarted program lost the rename")
	}
	c2.cs.Close()
	if code := wait(t, exit2, "exit after stdin closed"); code != ExitOK {
		t.Errorf("exit code %d, want %d", code, ExitOK)
	}
}

func runMain(t *testing.T, control string) (*client, chan int) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	exit := make(chan int, 1)
	go func() {
		code := Main([]string{"-control", control, "-poll", "5ms"}, inR, outW, io.Discard)
		inR.Close()
		outW.Close()
		exit <- code
	}()
	mc, c := newClient()
	cs, err := mc.Connect(t.Context(), &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c, exit
}

// TestReleaseEndsBlockedCalls (reproduction: a gateway test whose slow
// call's cancellation did not reach the upstream before the gateway
// closed hung in its cleanup, for the whole test timeout: the go-sdk
// server's session, closed by the gateway's DELETE, waited for the slow
// handler, and httptest.Server.Close for that DELETE). Release ends the
// blocked call, with an error, and the HTTP server closes.
func TestReleaseEndsBlockedCalls(t *testing.T) {
	t.Parallel()
	u := New(nil, DefaultTools()...)
	hs := httptest.NewServer(u.HTTPHandler())
	mc, _ := newClient()
	cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: SlowTool, Arguments: map[string]any{}})
		done <- err
	}()
	wait(t, u.SlowStarted(), "slow call start")
	u.Release()
	if err := wait(t, done, "the released call's answer"); err == nil || !strings.Contains(err.Error(), errReleased.Error()) {
		t.Errorf("released call: %v, want %v", err, errReleased)
	}
	closed := make(chan struct{})
	go func() {
		cs.Close()
		hs.Close()
		close(closed)
	}()
	wait(t, closed, "the HTTP server's Close")
}
