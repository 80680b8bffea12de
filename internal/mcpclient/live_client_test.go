package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// fakeEnv switches the test binary into a raw-JSON MCP server over stdio
// (see runFakeServer); its value names the behaviour.
const fakeEnv = "MCPCTL_TOOLSET_FAKE_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(runFakeServer(mode, os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

// Hand-written tools/list results, served byte for byte by the fake server.
// Page 1 holds a tool with "execution" (which mcp.Tool does not model) and
// no annotation hints (which mcp.Tool would turn into false), odd spacing
// and member order; page 2 a number spelled 1.0E2 and an escaped string.
const (
	fakeZeta  = `{"name":"zeta","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"execution":{"taskSupport":"optional"},"annotations":{"title":"Zeta"}}`
	fakeAlpha = `{ "name" : "alpha", "description": "caf\u00e9 \"quoted\"",  "inputSchema": {"type": "object"} }`
	fakeMid   = `{"inputSchema":{"type":"object","additionalProperties":false},"name":"mid","outputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1.0E2}}}}`
	fakePage1 = `{"tools":[` + fakeZeta + ` , ` + fakeAlpha + `],"nextCursor":"p1"}`
	fakePage2 = `{"nextCursor":null,"tools":[` + fakeMid + `]}`
)

// fakeModes maps a mode to the tools/list results it serves: page i for the
// cursor "" (i = 0) or "p<i>".
var fakeModes = map[string][]string{
	"raw":    {fakePage1, fakePage2},
	"dup":    {fakePage1, `{"tools":[` + fakeAlpha + `]}`},
	"loop":   {fakePage1, `{"tools":[],"nextCursor":"p1"}`},
	"strict": {`{"tools":[{"name":"a","inputSchema":{"type":"object"},"name":"b"}]}`},
	"shape":  {`{"tools":{"name":"a"}}`},
	// "newer" refuses initialize at 2025-11-25 and serves 2026-07-28
	// through server/discover.
	"newer": {fakePage2},
	// "stubborn" answers like "raw" but ignores SIGTERM and the end of its
	// stdin, so only SIGKILL ends it.
	"stubborn": {fakePage1, fakePage2},
	// "chatty" prints a banner that is not JSON on stdout first, as many
	// servers do, then answers like "raw".
	"chatty": {fakePage1, fakePage2},
	// "exit" dies before answering; "hang" never answers.
	"exit": nil,
	"hang": nil,
}

// runFakeServer is a raw-JSON MCP server over newline-delimited stdio. It
// logs every request it receives to stderr as "fake: METHOD DETAIL", so
// tests can check what the client sent.
func runFakeServer(mode string, in io.Reader, out, errOut io.Writer) int {
	pages, ok := fakeModes[mode]
	if !ok {
		fmt.Fprintf(errOut, "fake: unknown mode %q\n", mode)
		return 2
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintf(errOut, "fake: pid %d\n", os.Getpid())
		defer func() {
			for {
				time.Sleep(time.Hour)
			}
		}()
	}
	if mode == "exit" {
		fmt.Fprintln(errOut, "fake: cannot open config")
		return 3
	}
	if mode == "chatty" {
		fmt.Fprintln(out, "Server starting...")
	}
	send := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
	}
	sendErr := func(id json.RawMessage, e string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":%s}`+"\n", id, e)
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string         `json:"protocolVersion"`
				Cursor          string         `json:"cursor"`
				Meta            map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			fmt.Fprintf(errOut, "fake: bad message: %v\n", err)
			return 1
		}
		metaVersion, _ := msg.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string)
		switch msg.Method {
		case "initialize":
			fmt.Fprintf(errOut, "fake: initialize %s\n", msg.Params.ProtocolVersion)
			if mode == "hang" {
				continue
			}
			if mode == "newer" {
				sendErr(msg.ID, `{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"`+msg.Params.ProtocolVersion+`"}}`)
				continue
			}
			send(msg.ID, `{"protocolVersion":"`+msg.Params.ProtocolVersion+`","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1.0.0"}}`)
		case "server/discover":
			fmt.Fprintf(errOut, "fake: server/discover %s\n", metaVersion)
			if mode != "newer" {
				sendErr(msg.ID, `{"code":-32601,"message":"Method not found"}`)
				continue
			}
			send(msg.ID, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"2.0.0"}}}`)
		case "tools/list":
			fmt.Fprintf(errOut, "fake: tools/list %q %s\n", msg.Params.Cursor, metaVersion)
			i := 0
			if c := msg.Params.Cursor; c != "" {
				if _, err := fmt.Sscanf(c, "p%d", &i); err != nil || i <= 0 || i >= len(pages) {
					sendErr(msg.ID, `{"code":-32602,"message":"bad cursor"}`)
					continue
				}
			}
			send(msg.ID, pages[i])
		default:
			fmt.Fprintf(errOut, "fake: %s\n", msg.Method)
			if len(msg.ID) > 0 {
				sendErr(msg.ID, `{"code":-32601,"message":"Method not found"}`)
			}
		}
	}
	return 0
}

// fakeSource returns the stdio source that runs this test binary as the
// fake server, and the options selecting mode.
func fakeSource(mode string, stderr io.Writer) (string, LiveOptions) {
	return "stdio:" + JoinWords([]string{os.Args[0]}), LiveOptions{
		// Under -race the child would sleep 1 s before exiting.
		Env:     []string{fakeEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"},
		Stderr:  stderr,
		Timeout: 30 * time.Second,
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// debugLogger returns a logger writing debug text records to buf.
func debugLogger(buf io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// fakeLog returns the "fake: …" lines of the fake server's stderr.
func fakeLog(stderr *syncBuffer) []string {
	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(l, "fake: ") {
			lines = append(lines, strings.TrimPrefix(l, "fake: "))
		}
	}
	return lines
}

type toolSummary struct {
	Name   string
	Raw    string
	Index  int
	Offset int
	Source string
}

func summarize(set *toolset.Set) []toolSummary {
	var s []toolSummary
	for _, t := range set.Tools {
		s = append(s, toolSummary{Name: t.Name, Raw: string(t.Raw), Index: t.Index, Offset: t.Offset, Source: t.Source})
	}
	return s
}

func TestLoadLiveStdioRawBytes(t *testing.T) {
	t.Parallel()
	var stderr, logs syncBuffer
	source, opts := fakeSource("raw", &stderr)
	opts.Logger = debugLogger(&logs)
	set, err := LoadLive(t.Context(), source, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v\nstderr:\n%s", err, stderr.String())
	}
	if want := "protocol=2025-11-25 server=fake version=1.0.0"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	if set.Source != source {
		t.Errorf("Source = %q, want %q", set.Source, source)
	}
	want := []toolSummary{
		{Name: "alpha", Raw: fakeAlpha, Index: 1, Offset: -1, Source: source},
		{Name: "mid", Raw: fakeMid, Index: 2, Offset: -1, Source: source},
		{Name: "zeta", Raw: fakeZeta, Index: 0, Offset: -1, Source: source},
	}
	if d := cmp.Diff(want, summarize(set)); d != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", d)
	}
	for _, tool := range set.Tools {
		if bytes.Contains(tool.Raw, []byte("Hint")) {
			t.Errorf("tool %s: Raw has an annotation hint the server did not send: %s", tool.Name, tool.Raw)
		}
	}
	if zeta := set.Lookup("zeta"); zeta == nil || zeta.Value.Get("execution") == nil {
		t.Errorf("zeta lost its execution member")
	}
	// The client pinned 2025-11-25: initialize directly, no server/discover,
	// then both pages in order.
	wantLog := []string{
		"initialize 2025-11-25",
		"notifications/initialized",
		`tools/list "" `,
		`tools/list "p1" `,
	}
	if d := cmp.Diff(wantLog, fakeLog(&stderr)); d != "" {
		t.Errorf("requests the server saw mismatch (-want +got):\n%s", d)
	}
}

// TestLoadLiveReapsStubbornServer: a server that outlives the end of its
// stdin and ignores SIGTERM is killed, and reaped, when the fetch ends.
func TestLoadLiveReapsStubbornServer(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	source, opts := fakeSource("stubborn", &stderr)
	set, err := LoadLive(t.Context(), source, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	if d := cmp.Diff([]string{"alpha", "mid", "zeta"}, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	var pid int
	for _, l := range fakeLog(&stderr) {
		if _, err := fmt.Sscanf(l, "pid %d", &pid); err == nil {
			break
		}
	}
	if pid == 0 {
		t.Fatalf("fake server did not log its pid: %q", stderr.String())
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(syscall.Signal(0))
	}
	if err == nil {
		t.Errorf("server process %d still exists after LoadLive returned", pid)
	}
}

func TestFetchCommand(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	_, opts := fakeSource("raw", &stderr)
	argv := []string{os.Args[0], "extra arg", "it's"}
	set, err := FetchCommand(t.Context(), argv, opts)
	if err != nil {
		t.Fatalf("FetchCommand: %v", err)
	}
	wantSource := "stdio:" + os.Args[0] + ` 'extra arg' 'it'\''s'`
	if strings.ContainsAny(os.Args[0], " '\"\\") {
		wantSource = "stdio:" + JoinWords(argv)
	}
	if set.Source != wantSource {
		t.Errorf("Source = %q, want %q", set.Source, wantSource)
	}
	if d := cmp.Diff([]string{"alpha", "mid", "zeta"}, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	if _, err := FetchCommand(t.Context(), nil, opts); !errors.Is(err, toolset.ErrInput) {
		t.Errorf("FetchCommand(nil) error = %v, want toolset.ErrInput", err)
	}
}

// TestLoadLiveStdioNewerOnly: a server that refuses initialize at
// 2025-11-25 (listing only 2026-07-28 as supported) is started again and
// reached with the SDK's newest revision through server/discover.
func TestLoadLiveStdioNewerOnly(t *testing.T) {
	t.Parallel()
	var stderr, logs syncBuffer
	source, opts := fakeSource("newer", &stderr)
	opts.Logger = debugLogger(&logs)
	set, err := LoadLive(t.Context(), source, opts)
	if err != nil {
		t.Fatalf("LoadLive: %v\nstderr:\n%s", err, stderr.String())
	}
	for _, want := range []string{"retrying with the newest", "protocol=2026-07-28 server=fake version=2.0.0"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	if d := cmp.Diff([]string{"mid"}, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	if got := string(set.Tools[0].Raw); got != fakeMid {
		t.Errorf("Raw = %s, want %s", got, fakeMid)
	}
	wantLog := []string{
		"initialize 2025-11-25",
		"server/discover 2026-07-28",
		`tools/list "" 2026-07-28`,
	}
	if d := cmp.Diff(wantLog, fakeLog(&stderr)); d != "" {
		t.Errorf("requests the server saw mismatch (-want +got):\n%s", d)
	}
}

func TestLoadLiveErrors(t *testing.T) {
	t.Parallel()
	closedURL := closedLoopbackURL(t)
	tests := []struct {
		name   string
		source string
		mode   string // fake server mode; "" runs source as given
		want   []string
	}{
		{name: "no command", source: "stdio:  ", want: []string{"no command after stdio:"}},
		{name: "bad quoting", source: `stdio:srv 'x`, want: []string{"unterminated single quote"}},
		{name: "not a URL", source: "http://", want: []string{"not a live source"}},
		{name: "command not found", source: "stdio:mcpctl-no-such-command-7f3a --flag",
			want: []string{`cannot start server "mcpctl-no-such-command-7f3a"`, "executable file not found"}},
		{name: "server exits at once", mode: "exit",
			want: []string{"initialize failed", "server exit status 3", "server stderr: fake: cannot open config"}},
		{name: "nothing listening", source: closedURL,
			want: []string{"cannot reach server", "connection refused"}},
		{name: "duplicate across pages", mode: "dup",
			want: []string{`tool "alpha"`, "duplicate tool name: tools[1] (page 1) and tools[2] (page 2) are both named \"alpha\""}},
		{name: "cursor loop", mode: "loop",
			want: []string{`tools/list page 2: nextCursor "p1" was already used`}},
		{name: "strict parse", mode: "strict",
			want: []string{"tools/list result (page 1): byte offset", `duplicate member name "name"`}},
		{name: "not a tool list", mode: "shape",
			want: []string{"tools/list result (page 1): /tools: byte offset 9: want an array, got object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			source, opts := tt.source, LiveOptions{Timeout: 30 * time.Second}
			if tt.mode != "" {
				source, opts = fakeSource(tt.mode, nil)
			}
			set, err := LoadLive(t.Context(), source, opts)
			if err == nil {
				t.Fatalf("LoadLive(%q) = %v, want an error", source, set.Names())
			}
			var ie *toolset.InputError
			if !errors.As(err, &ie) || !errors.Is(err, toolset.ErrInput) {
				t.Fatalf("error %v (%T) is not an *toolset.InputError wrapping toolset.ErrInput", err, err)
			}
			if ie.Source != source {
				t.Errorf("InputError.Source = %q, want %q", ie.Source, source)
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadLiveTimeout(t *testing.T) {
	t.Parallel()
	var stderr syncBuffer
	source, opts := fakeSource("hang", &stderr)
	opts.Timeout = 300 * time.Millisecond
	_, err := LoadLive(t.Context(), source, opts)
	if !errors.Is(err, toolset.ErrInput) || !strings.Contains(err.Error(), "no answer within 300ms (during initialize)") {
		t.Fatalf("error = %v, want an toolset.InputError saying no answer within 300ms", err)
	}
	// A timeout is not a protocol mismatch: no second initialize, no
	// tools/list. The go-sdk client may or may not get its
	// notifications/cancelled for the abandoned initialize out before the
	// server is stopped, so that one notification is not counted.
	var requests []string
	for _, l := range fakeLog(&stderr) {
		if l != "notifications/cancelled" {
			requests = append(requests, l)
		}
	}
	if d := cmp.Diff([]string{"initialize 2025-11-25"}, requests); d != "" {
		t.Errorf("requests the server saw mismatch (-want +got):\n%s", d)
	}
}

func TestLoadLiveCancelled(t *testing.T) {
	t.Parallel()
	source, opts := fakeSource("hang", nil)
	ctx, cancel := context.WithCancel(t.Context())
	// Cancel once the server has received initialize.
	opts.Stderr = writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("fake: initialize")) {
			cancel()
		}
		return len(p), nil
	})
	_, err := LoadLive(ctx, source, opts)
	if !errors.Is(err, context.Canceled) || errors.Is(err, toolset.ErrInput) {
		t.Fatalf("error = %v, want context.Canceled and not toolset.ErrInput", err)
	}
}

// TestLoadLiveCallerDeadline: the caller's own deadline is not a
// LiveOptions.Timeout, so not bad input.
func TestLoadLiveCallerDeadline(t *testing.T) {
	t.Parallel()
	source, opts := fakeSource("hang", nil)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := LoadLive(ctx, source, opts)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, toolset.ErrInput) {
		t.Fatalf("error = %v, want context.DeadlineExceeded and not toolset.ErrInput", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// closedLoopbackURL returns an http URL on a loopback port nothing listens
// on (it was bound, then released).
func closedLoopbackURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/mcp"
}

// httpRecord is one POST an MCP HTTP server received.
type httpRecord struct {
	Method          string // JSON-RPC method
	ProtocolVersion string // params.protocolVersion (initialize)
	Header          string // MCP-Protocol-Version header
}

// recordingHandler records every JSON-RPC POST before passing it on.
type recordingHandler struct {
	next http.Handler
	mu   sync.Mutex
	recs []httpRecord
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		h.mu.Lock()
		h.recs = append(h.recs, httpRecord{Method: msg.Method, ProtocolVersion: msg.Params.ProtocolVersion, Header: r.Header.Get("Mcp-Protocol-Version")})
		h.mu.Unlock()
	}
	h.next.ServeHTTP(w, r)
}

func (h *recordingHandler) records() []httpRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.recs)
}

// newToolServer returns a go-sdk server with n tools named tool_00 … in
// reverse order, listing pageSize tools per page.
func newToolServer(n, pageSize int, versions []string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1.0.0"},
		&mcp.ServerOptions{PageSize: pageSize, SupportedProtocolVersions: versions})
	for i := n - 1; i >= 0; i-- {
		srv.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("tool_%02d", i),
			Description: fmt.Sprintf("Tool number %d.", i),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "integer"}}},
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	return srv
}

func TestLoadLiveHTTPPaginated(t *testing.T) {
	t.Parallel()
	const n, pageSize = 10, 3
	srv := newToolServer(n, pageSize, nil)
	rec := &recordingHandler{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
	ts := httptest.NewServer(rec)
	defer ts.Close()

	set, err := LoadLive(t.Context(), ts.URL, LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	var wantNames []string
	for i := range n {
		wantNames = append(wantNames, fmt.Sprintf("tool_%02d", i))
	}
	if d := cmp.Diff(wantNames, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	indexes := map[int]bool{}
	for _, tool := range set.Tools {
		indexes[tool.Index] = true
		if tool.Source != ts.URL || tool.Offset != -1 {
			t.Errorf("tool %s: Source %q Offset %d, want %q -1", tool.Name, tool.Source, tool.Offset, ts.URL)
		}
		if want := fmt.Sprintf(`"description":"Tool number %s."`, strings.TrimLeft(strings.TrimPrefix(tool.Name, "tool_"), "0")); tool.Name != "tool_00" && !bytes.Contains(tool.Raw, []byte(want)) {
			t.Errorf("tool %s: Raw %s lacks %s", tool.Name, tool.Raw, want)
		}
	}
	if len(indexes) != n {
		t.Errorf("tool indexes %v are not %d distinct positions", indexes, n)
	}

	var lists []httpRecord
	var initialize *httpRecord
	for _, r := range rec.records() {
		switch r.Method {
		case "tools/list":
			lists = append(lists, r)
		case "initialize":
			initialize = &r
		case "server/discover":
			t.Errorf("client sent server/discover; want a pinned initialize")
		}
	}
	if initialize == nil || initialize.ProtocolVersion != PinnedProtocolVersion {
		t.Errorf("initialize = %+v, want protocolVersion %s", initialize, PinnedProtocolVersion)
	}
	wantLists := slices.Repeat([]httpRecord{{Method: "tools/list", Header: PinnedProtocolVersion}}, (n+pageSize-1)/pageSize)
	if d := cmp.Diff(wantLists, lists); d != "" {
		t.Errorf("tools/list requests mismatch (-want +got):\n%s", d)
	}
}

// TestLoadLiveHTTPNewerOnly: a stateless go-sdk server restricted to
// 2026-07-28 answers the pinned initialize with 2025-11-25 and then refuses
// that version with 400; the client retries with the newest revision.
func TestLoadLiveHTTPNewerOnly(t *testing.T) {
	t.Parallel()
	srv := newToolServer(4, 3, []string{"2026-07-28"})
	rec := &recordingHandler{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true})}
	ts := httptest.NewServer(rec)
	defer ts.Close()

	set, err := LoadLive(t.Context(), ts.URL, LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatalf("LoadLive: %v", err)
	}
	if d := cmp.Diff([]string{"tool_00", "tool_01", "tool_02", "tool_03"}, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	var lists []string
	sawPinned := false
	for _, r := range rec.records() {
		if r.Method == "initialize" && r.ProtocolVersion == PinnedProtocolVersion {
			sawPinned = true
		}
		if r.Method == "tools/list" {
			lists = append(lists, r.Header)
		}
	}
	if !sawPinned {
		t.Errorf("client did not try initialize at %s first; requests: %+v", PinnedProtocolVersion, rec.records())
	}
	if d := cmp.Diff([]string{"2026-07-28", "2026-07-28"}, lists); d != "" {
		t.Errorf("tools/list protocol headers mismatch (-want +got):\n%s", d)
	}
}

// TestLoadLiveFilesystemServer reads a real server from npm over stdio.
func TestLoadLiveFilesystemServer(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx not found: ", err)
	}
	dir := t.TempDir()
	source := "stdio:" + JoinWords([]string{"npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", dir})
	var stderr, logs syncBuffer
	set, err := LoadLive(t.Context(), source, LiveOptions{Timeout: 4 * time.Minute, Stderr: &stderr, Logger: debugLogger(&logs)})
	if err != nil {
		t.Fatalf("LoadLive: %v\nstderr:\n%s", err, stderr.String())
	}
	wantNames := []string{
		"create_directory", "directory_tree", "edit_file", "get_file_info",
		"list_allowed_directories", "list_directory", "list_directory_with_sizes",
		"move_file", "read_file", "read_media_file", "read_multiple_files",
		"read_text_file", "search_files", "write_file",
	}
	if d := cmp.Diff(wantNames, set.Names()); d != "" {
		t.Errorf("names mismatch (-want +got):\n%s", d)
	}
	if want := "protocol=2025-11-25 server=secure-filesystem-server"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	// This version sends "execution" and every annotation hint explicitly;
	// both must arrive as sent.
	if mv := set.Lookup("move_file"); mv != nil && (!bytes.Contains(mv.Raw, []byte(`"execution":{"taskSupport":"forbidden"}`)) ||
		!bytes.Contains(mv.Raw, []byte(`"destructiveHint":true`))) {
		t.Errorf("move_file Raw lacks execution or destructiveHint: %s", mv.Raw)
	}
	if !strings.Contains(stderr.String(), "Secure MCP Filesystem Server running on stdio") {
		t.Errorf("server stderr not passed on: %q", stderr.String())
	}
	var buf bytes.Buffer
	if err := toolset.WriteSnapshot(&buf, set); err != nil {
		t.Fatal(err)
	}
	back, err := toolset.Decode("snapshot", buf.Bytes())
	if err != nil {
		t.Fatalf("Decode(WriteSnapshot): %v", err)
	}
	if d := cmp.Diff(string(set.Canonical(false)), string(back.Canonical(false))); d != "" {
		t.Errorf("snapshot round trip mismatch (-want +got):\n%s", d)
	}
}
