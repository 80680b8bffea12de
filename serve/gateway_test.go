package serve

import (
	"context"
	"encoding/json"
	"errors"
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

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

const gatewayConfig = `tools:
  - name: local
    inputSchema: {type: object}
    handler: {static: {text: hi}}
upstreams:
  - name: files
    stdio: [fake-upstream]
    prefix: fs_
    tools: {exclude: [search]}
`

func startGateway(t *testing.T, config string, f *fakeUpstream, tweak ...func(*testOptions)) (*Server, string) {
	t.Helper()
	return startServer(t, config, append([]func(*testOptions){useFakes(map[string]*fakeUpstream{"files": f})}, tweak...)...)
}

func TestGatewayServesUpstreamToolsUnderPrefix(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	if d := cmp.Diff([]string{"fs_read_file", "fs_slow", "local"}, s.Live().Tools()); d != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", d)
	}
	// The upstream's own bytes (the go-sdk writes the name last), the name
	// prefixed.
	want := `{"description":"Reads a file.","inputSchema":` + fakeReadFile + `,"name":"fs_read_file"}`
	if got := string(s.Live().Set.Lookup("fs_read_file").Raw); got != want {
		t.Errorf("served bytes\n got %s\nwant %s", got, want)
	}
}

func TestGatewayCallPassesResultThroughUnderRealName(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	cs := connectSDK(t, s, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res)
	// Unchanged, but for the connection's _meta keys of the upstream hop
	// (the gateway's own SDK adds its serverInfo under 2026-07-28).
	want := `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpctl-serve","version":""},"upstream":"fake"},"content":[{"type":"text","text":"upstream read_file"}],"structuredContent":{"args":{"path":"missing"}},"isError":true}`
	if string(got) != want {
		t.Errorf("result\n got %s\nwant %s", got, want)
	}
	if c := recvWithin(t, "the upstream call", f.calls); c != `read_file {"path":"missing"}` {
		t.Errorf("upstream saw %q", c)
	}
}

func TestGatewayInvalidCallNeverReachesUpstream(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	cs := connectSDK(t, s, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": 3}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "/path") {
		t.Errorf("result = %v %q, want the self-healing isError naming /path", res.IsError, text)
	}
	select {
	case c := <-f.calls:
		t.Errorf("the upstream was called: %s", c)
	default:
	}
}

func TestGatewayUpstreamChangePublishedWithOneNotification(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	r := newReloads()
	s, _ := startGateway(t, gatewayConfig, f, r.hook)
	changed := make(chan struct{}, 16)
	cs := connectSDK(t, s, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }})
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	f.set("write_file", "Writes.", `{"type":"object"}`)
	res := r.waitFor(t, "publishing the upstream's new tool", func(res ReloadResult) bool { return res.Trigger == "upstream:files" && res.Result == ResultPublished })
	if !res.Changed {
		t.Errorf("reload = %+v, want changed", res)
	}
	recvWithin(t, "list_changed", changed)
	// The upstream notifies again with an identical list: no reload, no
	// notification (the next real change brings exactly one more).
	f.set("write_file", "Writes.", `{"type":"object"}`)
	f.set("slow", "Waits until cancelled.", `{"type":"object"}`)
	f.set("touch", "Touches.", `{"type":"object"}`)
	r.waitFor(t, "publishing touch", func(res ReloadResult) bool {
		return res.Trigger == "upstream:files" && res.Result == ResultPublished && s.Live().Set.Lookup("fs_touch") != nil
	})
	recvWithin(t, "list_changed", changed)
	settle(t, s)
	if n := len(changed); n != 0 {
		t.Errorf("%d extra list_changed notifications for an identical upstream list", n)
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 5 {
		t.Fatalf("tools/list: %v %d tools", err, len(lt.Tools))
	}
}

func TestGatewayUpstreamDownCallsFailFastNamingIt(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f, func(o *testOptions) { o.UpstreamBackoff = time.Hour })
	cs := connectSDK(t, s, nil)
	f.crash()
	waitUntil(t, "the upstream to be down", func() bool { return s.upstreamStatus()[0].State == "restarting" })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, `upstream "files"`) || !strings.Contains(text, "unavailable") {
		t.Errorf("result = %v %q, want an isError naming upstream \"files\" as unavailable", res.IsError, text)
	}
	// The generation keeps serving.
	if lt, err := cs.ListTools(context.Background(), nil); err != nil || len(lt.Tools) != 3 {
		t.Errorf("tools/list while down: %v", err)
	}
}

func TestGatewayUpstreamRestarted(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f, func(o *testOptions) { o.UpstreamBackoff = time.Millisecond })
	cs := connectSDK(t, s, nil)
	f.crash()
	waitUntil(t, "a restart", func() bool { return s.upstreamStatus()[0].Restarts == 1 })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": "a"}})
	if err != nil || res.IsError {
		t.Fatalf("call after the restart: %v %+v", err, res)
	}
	if n := f.connections(); n != 2 {
		t.Errorf("connections = %d, want 2", n)
	}
}

func TestGatewayProgressRelayedWithDownstreamToken(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	cs := connectSDK(t, s, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "fs_read_file", Arguments: map[string]any{"path": "a"}}
	params.SetProgressToken("downstream-7")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the progress notification", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	mu.Lock()
	defer mu.Unlock()
	if got[0].ProgressToken != "downstream-7" || got[0].Message != "half way" {
		t.Errorf("progress = %+v", got[0])
	}
}

func TestGatewayDownstreamCancelCancelsUpstream(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	cs := connectSDK(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs_slow", Arguments: map[string]any{}})
		done <- err
	}()
	recvWithin(t, "the upstream call", f.calls)
	cancel()
	if name := recvWithin(t, "the upstream call cancelled", f.cancelled); name != "slow" {
		t.Errorf("cancelled %q", name)
	}
	recvWithin(t, "the cancelled call to return", done)
}

func TestGatewayTimeoutCancelsUpstream(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, strings.Replace(gatewayConfig, "prefix: fs_", "prefix: fs_\n    timeout: 50ms", 1), f)
	cs := connectSDK(t, s, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fs_slow", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(text, "no answer within 50ms") {
		t.Errorf("result = %v %q", res.IsError, text)
	}
	recvWithin(t, "the upstream call cancelled", f.cancelled)
}

func TestGatewayNameCollisionLocated(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `tools:
  - name: fs_read_file
    inputSchema: {type: object}
    handler: {static: {text: hi}}
upstreams:
  - name: files
    stdio: [fake-upstream]
    prefix: fs_
`)
	opts := testOptions{Options: Options{ConfigPath: path}}
	useFakes(map[string]*fakeUpstream{"files": f})(&opts)
	_, err := newTestServer(context.Background(), opts)
	if !errors.Is(err, toolset.ErrInput) {
		t.Fatalf("err = %v, want a located input error", err)
	}
	want := dir + `/c.yaml:6:5: tool "fs_read_file": /name: upstream "files": duplicate name "fs_read_file": already used by tool "fs_read_file" (` + dir + `/c.yaml:2:5)`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v\nwant it to contain %s", err, want)
	}
}

func TestGatewayHTTPUpstreamHeadersFromEnvAndRealName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ protocol, wantName string }{
		// 2025-11-25 has no Mcp-Name header.
		{"", ""},
		// 2026-07-28 sends it: the upstream's own name, never the
		// exposed one.
		{upstream.LatestProtocol, "read_file"},
	} {
		t.Run("protocol="+tc.protocol, func(t *testing.T) { testHTTPUpstream(t, tc.protocol, tc.wantName) })
	}
}

func testHTTPUpstream(t *testing.T, protocol, wantName string) {
	f := newFakeUpstream(t)
	var mu sync.Mutex
	var auth, names []string
	// The go-sdk serves 2026-07-28 over stateless HTTP only.
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.srv }, &mcp.StreamableHTTPOptions{Stateless: protocol == upstream.LatestProtocol})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		if n := r.Header.Get("Mcp-Name"); n != "" {
			names = append(names, n)
		}
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the gateway's Close, which ends the upstream session
	config := "upstreams:\n  - name: web\n    http: {url: '" + hs.URL + "', headers: {Authorization: {env: WEB_AUTH}}}\n    prefix: web_\n"
	s, _ := startServer(t, config, func(o *testOptions) {
		o.upstreamProtocol = protocol
		o.Getenv = func(k string) (string, bool) {
			if k == "WEB_AUTH" {
				return "Bearer s3cret", true
			}
			return "", false
		}
	})
	cs := connectSDK(t, s, nil)
	// The upstream's list_changed arrives over HTTP too (its standalone
	// SSE stream).
	f.set("web_only", "New.", `{"type":"object"}`)
	waitUntil(t, "the upstream's new tool", func() bool { return s.Live().Set.Lookup("web_web_only") != nil })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "web_read_file", Arguments: map[string]any{"path": "a"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res.Content[0])
	}
	if c := recvWithin(t, "the upstream call", f.calls); c != `read_file {"path":"a"}` {
		t.Errorf("upstream saw %q", c)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, a := range auth {
		if a != "Bearer s3cret" {
			t.Errorf("a request carried Authorization %q", a)
		}
	}
	var calls []string
	for _, n := range names {
		if n != "" && n != "fake-upstream" && !strings.HasPrefix(n, "notifications/") {
			calls = append(calls, n)
		}
	}
	if wantName == "" && len(calls) > 0 || wantName != "" && !slices.Contains(calls, wantName) || slices.Contains(calls, "web_read_file") {
		t.Errorf("Mcp-Name headers sent: %q; want %q for the call, never the exposed name", names, wantName)
	}
}

func TestGatewayMissingHeaderVariableLocated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", "upstreams:\n  - name: web\n    http: {url: 'http://127.0.0.1:1/mcp', headers: {Authorization: {env: NOPE_UNSET}}}\n")
	_, err := New(context.Background(), Options{ConfigPath: path, Getenv: func(string) (string, bool) { return "", false }})
	want := dir + `/c.yaml:2:5: upstream "web": header Authorization: environment variable NOPE_UNSET is not set`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestGatewayAdvertisesToolsOnly(t *testing.T) {
	t.Parallel()
	s, _ := startGateway(t, gatewayConfig, newFakeUpstream(t))
	cs := connectSDK(t, s, nil)
	caps := cs.InitializeResult().Capabilities
	if caps.Tools == nil || caps.Resources != nil || caps.Prompts != nil {
		t.Errorf("capabilities = %+v, want tools only", caps)
	}
}

func TestGatewayCallsRecordedUnderExposedNamesAndReplay(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	rec := filepath.Join(t.TempDir(), "rec")
	s, _ := startGateway(t, gatewayConfig, f, func(o *testOptions) { o.RecordDir = rec })
	cs := connectSDK(t, s, nil)
	sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"})
	sdkCall(t, cs, "fs_read_file", map[string]any{"path": 1})
	s.Close()
	recorded, err := fixtures.Read(context.Background(), rec, nil)
	if err != nil || len(recorded) != 2 {
		t.Fatalf("records: %v, %d", err, len(recorded))
	}
	// Replayed against the gateway's served set, as replay and diff
	// --usage read them.
	r, err := fixtures.NewReplayer(s.Live().Set, s.Live().Config.Facades())
	if err != nil {
		t.Fatal(err)
	}
	rep := r.NewReport()
	for i := range recorded {
		if recorded[i].Tool != "fs_read_file" {
			t.Errorf("record %d names %q, want the exposed name fs_read_file", i, recorded[i].Tool)
		}
		r.Add(rep, &recorded[i])
		if c := rep.Calls[len(rep.Calls)-1]; c.Unexpected {
			t.Errorf("%s: replay says %s, the record expects %s", c.Source, c.Outcome, c.Expect)
		}
	}
}

func TestGatewayRefreshPollSeesASilentChange(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	r := newReloads()
	_, _ = startGateway(t, strings.Replace(gatewayConfig, "prefix: fs_", "prefix: fs_\n    refresh: 5ms", 1), f, r.hook)
	hidden := "slow"
	f.hidden.Store(&hidden)
	res := r.waitFor(t, "the polled change", func(res ReloadResult) bool { return res.Trigger == "upstream:files" })
	if res.Result != ResultQuarantined {
		t.Errorf("reload %s, want the removal quarantined", res.Result)
	}
}

func TestGatewayAdminReloadRereadsUpstreams(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f)
	hidden := "slow"
	f.hidden.Store(&hidden)
	if res := s.Reload(context.Background(), "admin"); res.Result != ResultQuarantined {
		t.Errorf("POST /reload: %s, want the upstream's removal found and quarantined", res.Result)
	}
	// Later reloads keep the quarantine (and the live generation).
	v := s.Live().Version
	if res := s.Reload(context.Background(), "watch"); res.Result != ResultQuarantined || s.Live().Version != v {
		t.Errorf("a config reload: %s, version %d, want quarantined at version %d", res.Result, s.Live().Version, v)
	}
}

// TestGatewayPinnedSessionKeepsItsUpstreamConnection: a config edit that
// changes how an upstream is reached starts a new connection; a session
// pinned to the old generation keeps calling over the old one, which is
// closed only when that generation is released (before, it was closed at
// once and the pinned session's calls failed as unavailable).
func TestGatewayPinnedSessionKeepsItsUpstreamConnection(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, path := startGateway(t, gatewayConfig, f, func(o *testOptions) { o.PinSessions = true })
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := newSDKClient(t, ct, "2025-11-25").cs // a revision with sessions: pinned
	waitUntil(t, "the pin", func() bool { return s.pinned.Load() == 1 })
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(path), filepath.Base(path), strings.Replace(gatewayConfig, "prefix: fs_", "prefix: fs_\n    timeout: 61s", 1))
	if res := s.Reload(context.Background(), "watch"); res.Result != ResultPublished {
		t.Fatalf("reload: %s %s", res.Result, res.Errors)
	}
	if n := f.connections(); n != 2 {
		t.Fatalf("connections = %d, want a new one for the new config", n)
	}
	if text, isErr := sdkCall(t, cs, "fs_read_file", map[string]any{"path": "a"}); isErr {
		t.Errorf("pinned session's call: %s", text)
	}
	// The session ends: its generation is released and the old
	// connection closed.
	_ = cs.Close()
	_ = ss.Close()
	waitUntil(t, "the old connection closed", func() bool {
		s.gw.mu.Lock()
		defer s.gw.mu.Unlock()
		return len(s.gw.conns) == 1
	})
}

// upstreamMetrics reads the upstream series: "name state" → value for
// mcpctl_serve_upstream_state, "name" → restarts.
func upstreamMetrics(t *testing.T, s *Server) (states map[string]float64, restarts map[string]float64) {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	states, restarts = map[string]float64{}, map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "mcpctl_serve_upstream_state":
				states[labels["upstream"]+" "+labels["state"]] = m.GetGauge().GetValue()
			case "mcpctl_serve_upstream_restarts_total":
				restarts[labels["upstream"]] = m.GetCounter().GetValue()
			}
		}
	}
	return states, restarts
}

func TestGatewayUpstreamMetrics(t *testing.T) {
	t.Parallel()
	f := newFakeUpstream(t)
	s, _ := startGateway(t, gatewayConfig, f, func(o *testOptions) { o.UpstreamBackoff = time.Millisecond })
	states, restarts := upstreamMetrics(t, s)
	if d := cmp.Diff(map[string]float64{"files connected": 1}, states); d != "" || restarts["files"] != 0 {
		t.Errorf("states mismatch (-want +got):\n%s restarts %v", d, restarts)
	}
	f.crash()
	waitUntil(t, "a restart", func() bool { return s.upstreamStatus()[0].Restarts == 1 })
	if _, restarts := upstreamMetrics(t, s); restarts["files"] != 1 {
		t.Errorf("restarts = %v, want files 1", restarts)
	}
	hidden := "slow"
	f.hidden.Store(&hidden)
	s.Reload(context.Background(), "admin")
	if states, _ := upstreamMetrics(t, s); states["files quarantined"] != 1 {
		t.Errorf("states after a refused change = %v, want files quarantined", states)
	}
}

// TestGatewayStatusCountsServedTools: an upstream with tools.include or
// exclude serves fewer tools than it lists, but /status and mcpctl status
// showed only the count it lists ("files  connected  lists 3 tools" for
// a gateway serving 2 of them). Found by a newcomer helper. Now Served
// says how many the live generation serves.
func TestGatewayStatusCountsServedTools(t *testing.T) {
	t.Parallel()
	s, _ := startGateway(t, gatewayConfig, newFakeUpstream(t))
	ups := s.Status().Upstreams
	if len(ups) != 1 || ups[0].Tools != 3 || ups[0].Served != 2 {
		t.Errorf("upstreams %+v, want files listing 3 tools and serving 2 (search excluded)", ups)
	}
}
