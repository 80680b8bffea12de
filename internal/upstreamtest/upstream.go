package upstreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/schema"
)

// SlowTool is the name of the tool whose calls block until cancelled.
const SlowTool = "slow"

// DefaultProgressSteps is how many progress notifications a call with a
// progressToken gets when Options.ProgressSteps is zero.
const DefaultProgressSteps = 3

// ErrNoTool is returned by a change that names a tool the upstream does not
// have; ErrNoProperty by RenameProperty when the property is absent;
// ErrBadChange by a change that is malformed (unknown op, a pointer that does
// not reach a schema object, a tool without a name).
var (
	ErrNoTool     = errors.New("upstreamtest: no such tool")
	ErrNoProperty = errors.New("upstreamtest: no such property")
	ErrBadChange  = errors.New("upstreamtest: bad change")
)

// Options configures an Upstream; the zero value is usable.
type Options struct {
	// Name and Version are the server's implementation info
	// ("mutable-upstream", "1.0.0" when empty).
	Name, Version string
	// ProgressSteps is the number of progress notifications sent for a call
	// with a progressToken (DefaultProgressSteps when zero, none when < 0).
	ProgressSteps int
}

// Upstream is the mutable upstream. Its methods are safe for concurrent use.
type Upstream struct {
	server    *mcp.Server
	steps     int
	mu        sync.Mutex
	tools     map[string]*entry
	calls     atomic.Int64
	started   chan string
	cancelled chan string
	// released ends every blocked call (Release).
	released    chan struct{}
	releaseOnce sync.Once
}

// entry is one tool as currently served: its definition, the input schema as
// a decoded JSON object, and its compiled validator.
type entry struct {
	tool     *mcp.Tool
	input    map[string]any
	validate *schema.Compiled
}

// New returns an upstream serving tools (see DefaultTools). It panics on a
// tool whose input schema does not compile: that is a bug in the test.
func New(opts *Options, tools ...*mcp.Tool) *Upstream {
	if opts == nil {
		opts = &Options{}
	}
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "mutable-upstream"
	}
	if version == "" {
		version = "1.0.0"
	}
	steps := opts.ProgressSteps
	if steps == 0 {
		steps = DefaultProgressSteps
	}
	u := &Upstream{
		server: mcp.NewServer(&mcp.Implementation{Name: name, Version: version},
			&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}}),
		steps:     steps,
		tools:     map[string]*entry{},
		started:   make(chan string, 256),
		cancelled: make(chan string, 256),
		released:  make(chan struct{}),
	}
	for _, t := range tools {
		if err := u.Add(t); err != nil {
			panic(err)
		}
	}
	return u
}

// DefaultTools returns fresh copies of the kit's tools: "echo" (message:
// string, required; mode: enum plain|loud|quiet), "count" (n: integer) and
// "slow" (no arguments; blocks until cancelled).
func DefaultTools() []*mcp.Tool {
	return []*mcp.Tool{
		{Name: "echo", Description: "Echo the message.", InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"message": map[string]any{"type": "string"},
				"mode":    map[string]any{"type": "string", "enum": []any{"plain", "loud", "quiet"}},
			},
			"required": []any{"message"},
		}},
		{Name: "count", Description: "Count to n.", InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 0}},
		}},
		{Name: SlowTool, Description: "Block until cancelled.", InputSchema: map[string]any{
			"type": "object", "properties": map[string]any{},
		}},
	}
}

// Server is the underlying go-sdk server (to run it on any transport).
func (u *Upstream) Server() *mcp.Server { return u.server }

// Transport connects a new server session over mcp.NewInMemoryTransports and
// returns the client's end, for a gateway (or a client) to connect with.
func (u *Upstream) Transport(ctx context.Context) (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := u.server.Connect(ctx, st, nil); err != nil {
		return nil, fmt.Errorf("upstreamtest: connect: %w", err)
	}
	return ct, nil
}

// Pipe connects a new server session over one end of a net.Pipe, spoken
// as stdio (mcp.IOTransport: what mcp.NewInMemoryTransports does), and
// returns the other end, for a client that reads and writes lines itself.
func (u *Upstream) Pipe(ctx context.Context) (io.ReadWriteCloser, error) {
	c, s := net.Pipe()
	if _, err := u.server.Connect(ctx, &mcp.IOTransport{Reader: s, Writer: s}, nil); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("upstreamtest: connect: %w", err)
	}
	return c, nil
}

// ProtocolVersion is the MCP revision Connect initializes at: the one the
// gateway speaks to its upstreams. (At 2026-07-28 a client opens
// subscriptions/listen, and go-sdk v1.8.0's ServerSession.Close can wait
// forever for a listen that arrived just before it: Crash would hang.)
const ProtocolVersion = "2025-11-25"

// Connect connects c to the upstream in process, at ProtocolVersion.
func (u *Upstream) Connect(ctx context.Context, c *mcp.Client) (*mcp.ClientSession, error) {
	t, err := u.Transport(ctx)
	if err != nil {
		return nil, err
	}
	return c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
}

// HTTPHandler serves the upstream over streamable HTTP (MCP 2025-11-25,
// Basic / Transports / Streamable HTTP).
func (u *Upstream) HTTPHandler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.server }, nil)
}

// Release ends every call to SlowTool blocked now or later, with an
// error, as a server process that exits would. A test's cleanup releases
// them before it closes the upstream's HTTP server: a go-sdk server's
// session waits for its handlers as it closes, so one whose cancellation
// never came would hold that Close forever.
func (u *Upstream) Release() {
	u.releaseOnce.Do(func() { close(u.released) })
}

// Crash closes every session, as a crashing process would. The upstream
// keeps its tools and accepts new sessions afterwards. Sessions should be
// at ProtocolVersion (see there).
func (u *Upstream) Crash() {
	for ss := range u.server.Sessions() {
		_ = ss.Close()
	}
}

// Tools returns the current tool definitions, sorted by name (copies).
func (u *Upstream) Tools() []*mcp.Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]*mcp.Tool, 0, len(u.tools))
	for _, e := range u.tools {
		out = append(out, copyTool(e.tool, e.input))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Calls is the number of tools/call requests served so far.
func (u *Upstream) Calls() int64 { return u.calls.Load() }

// SlowStarted receives the tool name each time a call to SlowTool starts
// (buffered; a full buffer drops).
func (u *Upstream) SlowStarted() <-chan string { return u.started }

// Cancelled receives the tool name each time a call ends because its request
// was cancelled (buffered; a full buffer drops).
func (u *Upstream) Cancelled() <-chan string { return u.cancelled }

// copyTool returns a copy of t whose input schema is a deep copy of input,
// so the server never shares a map a later change mutates.
func copyTool(t *mcp.Tool, input map[string]any) *mcp.Tool {
	c := *t
	c.InputSchema = schema.CloneInstance(input)
	return &c
}

// decodeObject turns a tool's input schema (any value that marshals to a JSON
// object) into a decoded object.
func decodeObject(v any) (map[string]any, error) {
	d, err := decodeJSON(v)
	if err != nil {
		return nil, err
	}
	m, ok := d.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the input schema is not an object", ErrBadChange)
	}
	return m, nil
}

// decodeJSON turns any value that marshals to JSON into the decoded form the
// validator takes (numbers as json.Number).
func decodeJSON(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadChange, err)
	}
	d, err := schema.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadChange, err)
	}
	return d, nil
}
