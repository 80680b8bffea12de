package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/httptransport"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// PinnedProtocolVersion is the MCP revision mcpctl asks a live server for
	// first. See fetch for how a server that only speaks a newer revision is
	// handled.
	PinnedProtocolVersion = "2025-11-25"

	// DefaultLiveTimeout bounds a live exchange when LiveOptions.Timeout is 0.
	DefaultLiveTimeout = 60 * time.Second

	// stdioTerminateDelay is how long closing a stdio session waits for the
	// server to exit after its stdin is closed, and again after SIGTERM,
	// before the next step (SIGTERM, then SIGKILL); MCP 2025-11-25
	// basic/lifecycle "Shutdown", stdio.
	stdioTerminateDelay = 2 * time.Second
	// stdioWaitDelay bounds how long reaping the server waits for its stderr
	// to reach EOF once it has exited (a grandchild may hold it open).
	stdioWaitDelay = time.Second
	// stderrTail is how many trailing bytes of a stdio server's stderr are
	// kept to explain a failure.
	stderrTail = 2048
	// maxPages stops a server whose cursors never end.
	maxPages = 10000
)

// FetchCommand reads the tool set of a server started as the command argv
// (argv[0] is looked up in PATH, argv[1:] are its arguments; no shell is
// involved) and spoken to over stdio, as `mcpctl snapshot -- COMMAND ARGS…`
// does. The set's Source is "stdio:" followed by argv quoted with JoinWords,
// so it reads back as the same command through source.Load. Errors are as for
// LoadLive.
func FetchCommand(ctx context.Context, argv []string, opts LiveOptions) (*toolset.Set, error) {
	source := "stdio:" + JoinWords(argv)
	if len(argv) == 0 {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "no command given"}
	}
	return fetch(ctx, source, &stdioEndpoint{source: source, argv: argv, opts: opts}, opts)
}

// loadLive implements LoadLive for "stdio:COMMAND ARGS…" (split by
// SplitWords) and http(s) URLs (MCP streamable HTTP).
func loadLive(ctx context.Context, source string, opts LiveOptions) (*toolset.Set, error) {
	if rest, ok := strings.CutPrefix(source, "stdio:"); ok {
		argv, err := SplitWords(rest)
		if err != nil {
			return nil, &toolset.InputError{Source: source, Offset: -1, Msg: err.Error(), Err: err}
		}
		if len(argv) == 0 {
			return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "no command after stdio:, want stdio:COMMAND ARGS…"}
		}
		return fetch(ctx, source, &stdioEndpoint{source: source, argv: argv, opts: opts}, opts)
	}
	u, err := url.Parse(source)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		msg := "not a live source; want stdio:COMMAND ARGS… or an http(s):// URL"
		if err != nil {
			msg = fmt.Sprintf("invalid URL: %v", err)
		}
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: msg, Err: err}
	}
	return fetch(ctx, source, &httpEndpoint{url: source, headers: opts.Headers}, opts)
}

// An endpoint makes a fresh client transport for each connection attempt
// and explains failures in its own terms.
type endpoint interface {
	// transport returns a new transport whose connection reports to c.
	transport(c *capture) mcp.Transport
	// starting says what connecting does ("starting COMMAND …"), for
	// LiveOptions.Progress.
	starting() string
	// startFailure describes an error of Transport.Connect or of the first
	// request that shows the server could not be started or reached, or
	// returns "" when err is not such an error.
	startFailure(err error) string
	// details returns what is known about the server's end after a failure
	// (exit status, the tail of its stderr), or "".
	details() string
	// release frees what the endpoint holds once all attempts are done.
	release()
}

// fetch runs the whole exchange with one deadline (opts.Timeout, default
// DefaultLiveTimeout): connect, initialize, then tools/list until the last
// page. The session is always closed (for stdio: stdin closed, the server
// awaited, then SIGTERM and SIGKILL if it lingers).
//
// Protocol version. The go-sdk v1.8.0 client (mcp/client.go, Client.Connect)
// sends ClientSessionOptions.ProtocolVersion, defaulting to its newest
// revision, 2026-07-28. For 2026-07-28 and later it first tries the
// stateless server/discover RPC (SEP-2575) and falls back to an initialize
// handshake at 2025-11-25; for older revisions it sends initialize with that
// version directly and accepts whatever version in its supported list the
// server answers with (including a newer one). So mcpctl connects with
// ProtocolVersion set to PinnedProtocolVersion, which skips server/discover
// and asks for 2025-11-25 in initialize. Only when that first attempt fails
// in a way that means "this server wants a newer revision" (see
// wantsNewerProtocol) is a second, fresh connection made (a new process for
// stdio) with the SDK's default, so the SDK negotiates 2026-07-28 through
// server/discover.
func fetch(ctx context.Context, source string, ep endpoint, opts LiveOptions) (*toolset.Set, error) {
	defer ep.release()
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultLiveTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errLiveTimeout)
	defer cancel()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	f := &fetcher{source: source, ep: ep, log: log, timeout: timeout, opts: opts}
	set, err := f.attempt(ctx, PinnedProtocolVersion)
	if err == nil || !f.retryNewer || ctx.Err() != nil {
		return set, err
	}
	log.Info("server refused protocol "+PinnedProtocolVersion+"; retrying with the newest the client supports",
		"source", source, "error", err)
	f.retryNewer = false
	set, err2 := f.attempt(ctx, "")
	if err2 != nil {
		var ie *toolset.InputError
		if errors.As(err2, &ie) {
			ie.Msg = fmt.Sprintf("with protocol %s: %v; with the newest protocol: %s", PinnedProtocolVersion, errMsg(err), ie.Msg)
		}
		return nil, err2
	}
	return set, nil
}

// errLiveTimeout is the cause of the fetch context when LiveOptions.Timeout
// passes (as opposed to a deadline or cancellation of the caller's context).
var errLiveTimeout = errors.New("live server timeout")

// errMsg returns an error's message without its source prefix.
func errMsg(err error) string {
	var ie *toolset.InputError
	if errors.As(err, &ie) {
		return ie.Msg
	}
	return err.Error()
}

type fetcher struct {
	source  string
	ep      endpoint
	log     *slog.Logger
	timeout time.Duration
	opts    LiveOptions
	// retryNewer is set by a failed attempt that should be repeated with
	// the SDK's newest protocol version.
	retryNewer bool
}

// attempt connects once with the given protocol version ("" for the SDK's
// default) and reads every tools/list page.
func (f *fetcher) attempt(ctx context.Context, version string) (*toolset.Set, error) {
	c := newCapture()
	client := mcp.NewClient(clientImplementation(), &mcp.ClientOptions{
		Logger: f.log,
		// No roots, sampling or elicitation: mcpctl only lists tools.
		Capabilities: &mcp.ClientCapabilities{},
	})
	f.opts.progress(f.ep.starting())
	session, err := client.Connect(ctx, &progressTransport{inner: f.ep.transport(c), progress: f.opts.progress}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		// Connect closes the session (and reaps a stdio server) itself.
		if version != "" && wantsNewerProtocol(err, c) {
			f.retryNewer = true
		}
		return nil, f.failure(ctx, "initialize", err)
	}
	res := session.InitializeResult()
	attrs := []any{"source", f.source, "protocol", res.ProtocolVersion}
	if res.ServerInfo != nil {
		attrs = append(attrs, "server", res.ServerInfo.Name, "version", res.ServerInfo.Version)
	}
	f.log.Debug("connected to live server", attrs...)

	tools, pageOf, listErr := f.listAll(ctx, session, c)
	// Close before explaining a failure: for stdio, Close returns once the
	// server has been reaped, so its exit status is known (and safe to read).
	if err := session.Close(); err != nil {
		// A server that exits with a non-zero status or a signal on
		// shutdown still answered; only note it.
		f.log.Debug("closing live server session", "source", f.source, "error", err)
	}
	var pe *phaseError
	if errors.As(listErr, &pe) {
		return nil, f.failure(ctx, pe.phase, pe.err)
	}
	if listErr != nil {
		return nil, listErr
	}
	set, err := toolset.NewSet(f.source, tools)
	var ie *toolset.InputError
	if errors.As(err, &ie) && ie.Tool != "" {
		// Say where the duplicates are in terms of the listing (no byte
		// offsets exist for a live source).
		var at []string
		for _, t := range tools {
			if t.Name == ie.Tool {
				at = append(at, fmt.Sprintf("tools[%d] (page %d)", t.Index, pageOf[t.Index]))
			}
		}
		ie.Msg = fmt.Sprintf("duplicate tool name: %s are all named %q", strings.Join(at, ", "), ie.Tool)
		if len(at) == 2 {
			ie.Msg = fmt.Sprintf("duplicate tool name: %s and %s are both named %q", at[0], at[1], ie.Tool)
		}
	}
	return set, err
}

// phaseError is an error of the client during one phase of the exchange,
// to be explained by fetcher.failure.
type phaseError struct {
	phase string
	err   error
}

func (e *phaseError) Error() string { return e.phase + ": " + e.err.Error() }
func (e *phaseError) Unwrap() error { return e.err }

// listAll drives tools/list pagination (MCP 2025-11-25 server/utilities/
// pagination) to the end and decodes the raw results the capture kept.
// Each call goes through session.ListTools so the SDK does the protocol
// work (request _meta under 2026-07-28, error mapping), but its decoded
// *mcp.Tool values are ignored: they lose members the SDK does not model
// (execution, …) and turn absent annotation hints into false. The tools are
// sliced from the result bytes exactly as the server sent them.
//
// It returns the tools in listing order and, for each, its 1-based page.
func (f *fetcher) listAll(ctx context.Context, session *mcp.ClientSession, c *capture) ([]*toolset.Tool, []int, error) {
	var (
		tools  []*toolset.Tool
		pageOf []int
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		if page > maxPages {
			return nil, nil, &toolset.InputError{Source: f.source, Offset: -1, Msg: fmt.Sprintf("tools/list: more than %d pages; pagination does not end", maxPages)}
		}
		f.opts.progress(fmt.Sprintf("listing tools, page %d", page))
		_, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		raw := c.takePages()
		if len(raw) == 0 {
			if err == nil {
				return nil, nil, fmt.Errorf("%s: tools/list page %d: internal error: result not captured", f.source, page)
			}
			return nil, nil, &phaseError{phase: fmt.Sprintf("tools/list (page %d)", page), err: err}
		}
		if err != nil {
			// The server answered with a result the SDK could not decode
			// into its types; the strict decoding below decides.
			f.log.Debug("go-sdk could not decode tools/list result; using the raw result", "source", f.source, "page", page, "error", err)
		}
		pageTools, next, err := f.decodePage(page, raw[len(raw)-1], len(tools))
		if err != nil {
			return nil, nil, err
		}
		tools = append(tools, pageTools...)
		for range pageTools {
			pageOf = append(pageOf, page)
		}
		if next == "" {
			return tools, pageOf, nil
		}
		if seen[next] {
			return nil, nil, &toolset.InputError{Source: f.source, Offset: -1, Msg: fmt.Sprintf("tools/list page %d: nextCursor %q was already used; pagination does not end", page, next)}
		}
		seen[next] = true
		cursor = next
	}
}

// decodePage parses one raw tools/list result strictly with canon.Parse:
// an object with a "tools" array of tool objects (each with a string
// "name") and an optional string "nextCursor" (absent, null or "" ends the
// listing; the go-sdk cannot send an empty cursor). Tools get Index first,
// first+1, … and Offset -1 (their Value offsets are relative to the page).
func (f *fetcher) decodePage(page int, data []byte, first int) ([]*toolset.Tool, string, error) {
	where := fmt.Sprintf("tools/list result (page %d)", page)
	bad := func(off int, ptr, msg string) error {
		if off >= 0 {
			msg = fmt.Sprintf("byte offset %d: %s", off, msg)
		}
		if ptr != "" {
			msg = ptr + ": " + msg
		}
		return &toolset.InputError{Source: f.source, Offset: -1, Msg: where + ": " + msg}
	}
	root, err := canon.Parse(data)
	if err != nil {
		var se *canon.SyntaxError
		if errors.As(err, &se) {
			return nil, "", bad(se.Offset, "", se.Msg)
		}
		return nil, "", bad(-1, "", err.Error())
	}
	if root.Kind != canon.Object {
		return nil, "", bad(root.Start, "", fmt.Sprintf("want an object, got %s", root.Kind))
	}
	list := root.Get("tools")
	if list == nil {
		return nil, "", bad(root.Start, "", `no "tools" member`)
	}
	if list.Kind != canon.Array {
		return nil, "", bad(list.Start, "/tools", fmt.Sprintf("want an array, got %s", list.Kind))
	}
	var next string
	if nc := root.Get("nextCursor"); nc != nil {
		switch nc.Kind {
		case canon.String:
			next = nc.Str
		case canon.Null:
		default:
			return nil, "", bad(nc.Start, "/nextCursor", fmt.Sprintf("want a string, got %s", nc.Kind))
		}
	}
	tools := make([]*toolset.Tool, 0, len(list.Items))
	lines := canon.NewLines(data)
	for i := range list.Items {
		item := &list.Items[i]
		ptr := fmt.Sprintf("/tools/%d", i)
		if item.Kind != canon.Object {
			return nil, "", bad(item.Start, ptr, fmt.Sprintf("a tool must be an object, got %s", item.Kind))
		}
		t, serr := toolset.ToolFromValue(f.source, data, lines, item, first+i, ptr)
		if serr != nil {
			return nil, "", bad(serr.Offset, serr.Pointer, serr.Msg)
		}
		// Offsets and positions would point into one page of the
		// server's response, a file nobody can open.
		t.Offset, t.Locate = -1, nil
		tools = append(tools, t)
	}
	return tools, next, nil
}

// failure turns an error of phase into an *InputError naming the source
// (LiveOptions.Timeout passing is one), or, when the caller's context was
// cancelled or reached its own deadline, a plain error wrapping ctx.Err().
func (f *fetcher) failure(ctx context.Context, phase string, err error) error {
	var msg string
	switch {
	case errors.Is(context.Cause(ctx), errLiveTimeout):
		msg = fmt.Sprintf("no answer within %s (during %s)", f.timeout, phase)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %s: %w", f.source, phase, ctx.Err())
	default:
		if start := f.ep.startFailure(err); start != "" {
			msg = start
		} else {
			msg = fmt.Sprintf("%s failed: %v", phase, err)
		}
	}
	if d := f.ep.details(); d != "" {
		msg += "; " + d
	}
	return &toolset.InputError{Source: f.source, Offset: -1, Msg: msg, Err: err}
}

// wantsNewerProtocol reports whether a failed connection attempt at
// PinnedProtocolVersion should be repeated with the SDK's newest version:
// the server answered initialize with a JSON-RPC error that says the
// version or the method is not supported (SEP-2575's
// UnsupportedProtocolVersion code, method not found, or the 2025-11-25
// lifecycle's invalid-params error whose data lists a newer supported
// version), or an HTTP server rejected a request with 400 Bad Request
// (a streamable HTTP server that only speaks 2026-07-28 refuses the
// MCP-Protocol-Version header 2025-11-25 that follows a legacy initialize).
func wantsNewerProtocol(err error, c *capture) bool {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		switch we.Code {
		case mcp.CodeUnsupportedProtocolVersion, jsonrpc.CodeMethodNotFound:
			return true
		case jsonrpc.CodeInvalidParams:
			var data struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(we.Data, &data) == nil {
				for _, v := range data.Supported {
					if v > PinnedProtocolVersion {
						return true
					}
				}
			}
		}
	}
	return c.badRequest.Load()
}

// clientImplementation names mcpctl in initialize (clientInfo), with the
// module version from the build information when there is one.
func clientImplementation() *mcp.Implementation {
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
			if m.Path == "github.com/mcpctl/mcpctl" && m.Version != "" && m.Version != "(devel)" {
				version = m.Version
				break
			}
		}
	}
	return &mcp.Implementation{Name: "mcpctl", Version: version}
}

// capture watches the JSON-RPC messages of one connection. It remembers the
// IDs of the initialize and tools/list requests written and keeps, for each
// matching response, the raw bytes of its "result": tools/list results in
// arrival order (taken by takePages), the initialize result's
// protocolVersion (used for the MCP-Protocol-Version HTTP header).
type capture struct {
	mu      sync.Mutex
	pending map[any]string // request ID → method
	pages   [][]byte
	version string
	// badRequest is set when an HTTP server answered 400 Bad Request.
	badRequest atomic.Bool
	progress   progressLog
}

func newCapture() *capture { return &capture{pending: map[any]string{}} }

func (c *capture) expect(req *jsonrpc.Request) {
	c.progress.sent(req)
	if !req.IsCall() || (req.Method != "tools/list" && req.Method != "initialize") {
		return
	}
	c.mu.Lock()
	c.pending[req.ID.Raw()] = req.Method
	c.mu.Unlock()
}

func (c *capture) received(resp *jsonrpc.Response) {
	c.progress.answered(resp)
	c.mu.Lock()
	defer c.mu.Unlock()
	method, ok := c.pending[resp.ID.Raw()]
	if !ok {
		return
	}
	delete(c.pending, resp.ID.Raw())
	if resp.Error != nil || resp.Result == nil {
		return
	}
	switch method {
	case "tools/list":
		c.pages = append(c.pages, bytes.Clone(resp.Result))
	case "initialize":
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &r) == nil {
			c.version = r.ProtocolVersion
		}
	}
}

// takePages returns the tools/list results received since the last call.
func (c *capture) takePages() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pages
	c.pages = nil
	return p
}

func (c *capture) protocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// captureTransport wraps a client transport so that its connection reports
// to a capture.
type captureTransport struct {
	inner mcp.Transport
	c     *capture
}

func (t *captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, c: t.c}, nil
}

// captureConn is an mcp.Connection that forwards every call and shows the
// messages to its capture. It hides the SDK's unexported session-state hook
// of the streamable HTTP connection (which sets the MCP-Protocol-Version
// header and starts the standalone SSE stream); httpEndpoint makes up for
// the header, and mcpctl needs no standalone stream.
type captureConn struct {
	mcp.Connection
	c *capture
}

func (cc *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok {
		cc.c.expect(req) // before writing: the answer may come at once
	}
	return cc.Connection.Write(ctx, msg)
}

func (cc *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := cc.Connection.Read(ctx)
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if err == nil {
			cc.c.received(m)
		}
	case *jsonrpc.Request:
		if err == nil {
			cc.c.progress.read(m)
		}
	}
	return msg, err
}

// stdioEndpoint starts argv as a child process for each attempt, with
// opts.Env added to the environment and its stderr copied to opts.Stderr.
type stdioEndpoint struct {
	source string
	argv   []string
	opts   LiveOptions

	mu   sync.Mutex
	cmd  *exec.Cmd // of the latest attempt
	tail *StderrTail
}

func (e *stdioEndpoint) transport(c *capture) mcp.Transport {
	cmd := exec.Command(e.argv[0], e.argv[1:]...)
	if len(e.opts.Env) > 0 {
		cmd.Env = append(os.Environ(), e.opts.Env...)
	}
	tail := NewStderrTail(e.opts.Stderr)
	cmd.Stderr = tail
	cmd.WaitDelay = stdioWaitDelay
	e.mu.Lock()
	e.cmd, e.tail = cmd, tail
	e.mu.Unlock()
	return &captureTransport{inner: CommandTransport(cmd, stdioTerminateDelay, e.skipped), c: c}
}

func (e *stdioEndpoint) starting() string { return "starting " + JoinWords(e.argv) + " …" }

// skipped warns about a line of the server's stdout that the connection
// did not pass on as it came (why: "that is not JSON-RPC", …).
func (e *stdioEndpoint) skipped(line, why string) {
	if e.opts.Warn != nil {
		e.opts.Warn(SkippedLine(e.source, line, why))
	}
}

// SkippedLine is the warning about a line of source's standard output
// that a stdio connection skipped, why.
func SkippedLine(source, line, why string) string {
	if len(line) > maxQuoted {
		line = line[:maxQuoted] + "…"
	}
	return fmt.Sprintf("%s: skipped a line on the server's standard output %s: %q", source, why, line)
}

// maxQuoted is how many bytes of a skipped line a warning quotes.
const maxQuoted = 200

func (e *stdioEndpoint) startFailure(err error) string {
	e.mu.Lock()
	started := e.cmd != nil && e.cmd.Process != nil
	e.mu.Unlock()
	if started {
		return ""
	}
	return fmt.Sprintf("cannot start server %q: %v", e.argv[0], err)
}

func (e *stdioEndpoint) details() string {
	e.mu.Lock()
	cmd, tail := e.cmd, e.tail
	e.mu.Unlock()
	return ExitDetails(cmd, tail)
}

// ExitDetails says how a stdio server's process ended and what it last
// wrote to its standard error ("server exit status 1; server stderr: …",
// the last 5 lines), or "" when neither is known: what explains a server
// that failed to start.
func ExitDetails(cmd *exec.Cmd, tail *StderrTail) string {
	if cmd == nil {
		return ""
	}
	var parts []string
	if ps := cmd.ProcessState; ps != nil {
		parts = append(parts, "server "+ps.String())
	}
	if s := tail.lastLines(5); s != "" {
		parts = append(parts, "server stderr: "+s)
	}
	return strings.Join(parts, "; ")
}

func (e *stdioEndpoint) release() {}

// httpEndpoint speaks MCP streamable HTTP (MCP 2025-11-25 basic/transports)
// to url through its own http.Transport, whose idle connections are closed
// when the fetch ends.
type httpEndpoint struct {
	url     string
	headers http.Header

	once sync.Once
	base *http.Transport
}

func (e *httpEndpoint) transport(c *capture) mcp.Transport {
	e.once.Do(func() { e.base = httptransport.New() })
	return &captureTransport{c: c, inner: &mcp.StreamableClientTransport{
		Endpoint:             e.url,
		HTTPClient:           &http.Client{Transport: &versionHeader{base: WithHeaders(e.base, e.headers), c: c}},
		MaxRetries:           2,
		DisableStandaloneSSE: true,
	}}
}

func (e *httpEndpoint) starting() string { return "connecting to " + e.url + " …" }

func (e *httpEndpoint) startFailure(err error) string {
	var re *refusedError
	if errors.As(err, &re) {
		return re.Error()
	}
	var ne *net.OpError
	var ue *url.Error
	if errors.As(err, &ne) || errors.As(err, &ue) {
		return fmt.Sprintf("cannot reach server: %v", err)
	}
	return ""
}

func (e *httpEndpoint) details() string { return "" }

func (e *httpEndpoint) release() {
	if e.base != nil {
		e.base.CloseIdleConnections()
	}
}

// versionHeader is an http.RoundTripper that sets the MCP-Protocol-Version
// header (MCP 2025-11-25 basic/transports, "Protocol Version Header") to
// the version the server answered in initialize on every request that lacks
// it. The go-sdk sets it through a hook that captureConn hides; under
// 2026-07-28 the SDK sets it from each request's _meta itself. It also
// notes 400 Bad Request answers for wantsNewerProtocol.
type versionHeader struct {
	base http.RoundTripper
	c    *capture
}

func (v *versionHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	const header = "Mcp-Protocol-Version"
	if req.Header.Get(header) == "" {
		if pv := v.c.protocolVersion(); pv != "" {
			req = req.Clone(req.Context())
			req.Header.Set(header, pv)
		}
	}
	resp, err := v.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusBadRequest {
		v.c.badRequest.Store(true)
	}
	return resp, err
}

// ErrCredentials is wrapped by the error of a live HTTP source that answered
// 401 Unauthorized or 403 Forbidden: it wants credentials (see
// LiveOptions.Headers).
var ErrCredentials = errors.New("the server wants credentials")

// refusedError is an HTTP server's 401 or 403 answer.
type refusedError struct{ status string }

func (e *refusedError) Unwrap() error { return ErrCredentials }

func (e *refusedError) Error() string {
	return "the server answered " + e.status + ": it wants credentials (an Authorization header, or another header it names)"
}

// StderrTail receives a stdio server's standard error: it keeps the last
// bytes (ExitDetails reads them) and copies everything to w (nil: none).
type StderrTail struct {
	tail tailBuffer
	w    io.Writer
}

// NewStderrTail returns a StderrTail copying to w.
func NewStderrTail(w io.Writer) *StderrTail {
	return &StderrTail{tail: tailBuffer{max: stderrTail}, w: w}
}

// lastLines is tailBuffer.lastLines of s ("" for a nil s).
func (s *StderrTail) lastLines(n int) string {
	if s == nil {
		return ""
	}
	return s.tail.lastLines(n)
}

func (s *StderrTail) Write(p []byte) (int, error) {
	s.tail.Write(p)
	if s.w != nil {
		_, _ = s.w.Write(p)
	}
	return len(p), nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLines returns up to n last non-empty lines, trimmed and joined with
// " | ".
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	text := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// progressTransport reports "waiting for initialize …" once the connection
// is made (the server started or reached).
type progressTransport struct {
	inner    mcp.Transport
	progress func(string)
}

func (t *progressTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err == nil {
		t.progress("waiting for initialize …")
	}
	return conn, err
}

// WithHeaders returns an http.RoundTripper that adds h to every request
// before base (http.DefaultTransport when nil) sends it, and turns a 401
// Unauthorized or 403 Forbidden answer into an error wrapping
// ErrCredentials, so a client says what is missing. The request given is
// never modified.
func WithHeaders(base http.RoundTripper, h http.Header) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &headerTransport{base: base, h: h}
}

type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		req = req.Clone(req.Context())
		for name, values := range t.h {
			req.Header[name] = values
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		resp.Body.Close()
		return nil, &refusedError{status: resp.Status}
	}
	return resp, err
}
