package serve

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeUpstream is an in-process go-sdk MCP server whose tool list a test
// changes, connected to the gateway over in-memory transports (one server
// session per connection, so a crash ends one and a restart makes another).
type fakeUpstream struct {
	t   testing.TB
	srv *mcp.Server

	mu       sync.Mutex
	sessions []*mcp.ServerSession
	// calls receives the arguments of every call the upstream answered,
	// by tool name ("name {json}").
	calls chan string
	// cancelled receives the name of each call whose context ended.
	cancelled chan string
	// hidden, when set, is a tool tools/list leaves out without any
	// notification (a change only polling sees).
	hidden atomic.Pointer[string]
}

const (
	fakeReadFile = `{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"integer"}},"required":["path"]}`
	fakeSearch   = `{"type":"object","properties":{"query":{"type":"string"},"mode":{"type":"string","enum":["fast","full"]}},"required":["query"]}`
)

func newFakeUpstream(t testing.TB) *fakeUpstream {
	f := &fakeUpstream{t: t, srv: mcp.NewServer(&mcp.Implementation{Name: "fake-upstream", Version: "1"}, nil),
		calls: make(chan string, 1024), cancelled: make(chan string, 16)}
	f.srv.AddReceivingMiddleware(f.hide)
	f.set("read_file", "Reads a file.", fakeReadFile)
	f.set("search", "Searches.", fakeSearch)
	f.set("slow", "Waits until cancelled.", `{"type":"object"}`)
	return f
}

// set adds or replaces a tool (the server notifies list_changed).
func (f *fakeUpstream) set(name, description, inputSchema string) {
	f.srv.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: json.RawMessage(inputSchema)}, f.handle)
}

// hide answers tools/list without the hidden tool.
func (f *fakeUpstream) hide(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		h := f.hidden.Load()
		if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && h != nil {
			lr.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(t *mcp.Tool) bool { return t.Name == *h })
		}
		return res, err
	}
}

// remove removes tools (the server notifies list_changed).
func (f *fakeUpstream) remove(names ...string) { f.srv.RemoveTools(names...) }

func (f *fakeUpstream) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	f.calls <- req.Params.Name + " " + string(req.Params.Arguments)
	if tok := req.Params.GetProgressToken(); tok != nil {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "half way"})
	}
	if req.Params.Name == "slow" {
		<-ctx.Done()
		f.cancelled <- req.Params.Name
		return nil, ctx.Err()
	}
	var args map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &args)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "upstream " + req.Params.Name}},
		StructuredContent: map[string]any{"args": args}, IsError: args["path"] == "missing", Meta: mcp.Meta{"upstream": "fake"}}, nil
}

// transport makes the transport of each connection of the gateway.
func (f *fakeUpstream) transport() mcp.Transport {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.srv.Connect(context.Background(), st, nil)
	if err != nil {
		f.t.Error(err)
	}
	f.mu.Lock()
	f.sessions = append(f.sessions, ss)
	f.mu.Unlock()
	return ct
}

// crash ends the server side of the latest connection.
func (f *fakeUpstream) crash() {
	f.mu.Lock()
	ss := f.sessions[len(f.sessions)-1]
	f.mu.Unlock()
	_ = ss.Close()
}

func (f *fakeUpstream) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.sessions)
}

// useFakes makes the upstreams named in ups use the fakes.
func useFakes(ups map[string]*fakeUpstream) func(*testOptions) {
	return func(o *testOptions) {
		o.upstreamTransport = func(name string) func() mcp.Transport {
			if f := ups[name]; f != nil {
				return f.transport
			}
			return nil
		}
	}
}

// connectSDK connects a go-sdk client to s over in-memory transports.
func connectSDK(t *testing.T, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "1"}, opts)
	acked := watchSubscribed(client)
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if opts != nil && opts.ToolListChangedHandler != nil { // it subscribed
		waitSubscribed(t, cs, acked)
	}
	return cs
}
