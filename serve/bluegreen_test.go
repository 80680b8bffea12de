package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Blue/green rollouts (docs/serve.md#bluegreen) with go-sdk clients. The
// two sides mirror the real server-filesystem 2025.8.18 (blue) and
// 2025.11.25 (green) read_multiple_files, whose paths gained minItems: 1
// (the real breaking change); each side answers with its own name. The
// retirement timer is a timer of the fake clock (clocktest.Fake), fired by
// the test.

const greenSideConfig = `server: {name: files, version: 2025.11.25}
tools:
  - name: read_multiple_files
    inputSchema:
      type: object
      properties:
        paths: {type: array, minItems: 1, items: {type: string}}
      required: [paths]
    handler: {static: {text: green}}
`

// blueSideConfig also has a tool green dropped.
const blueSideConfig = `server: {name: files, version: 2025.8.18}
tools:
  - name: read_multiple_files
    inputSchema:
      type: object
      properties:
        paths: {type: array, items: {type: string}}
      required: [paths]
      additionalProperties: false
    handler: {static: {text: blue}}
  - name: read_file
    inputSchema: {type: object, properties: {path: {type: string}}, required: [path]}
    handler: {static: {text: blue read_file}}
`

// startRollout starts a server on greenSideConfig with a blue side built
// from blueSideConfig; timer 0 of clk is the retirement.
func startRollout(t *testing.T, newSessions serveconfig.Side, clk *clocktest.Fake) *Server {
	t.Helper()
	s, path := startServer(t, greenSideConfig, withClock(clk))
	cfg, err := serveconfig.LoadConfig(writeFile(t, filepath.Dir(path), "blue.yaml", blueSideConfig))
	if err != nil {
		t.Fatal(err)
	}
	blue, err := s.buildBlue(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.startRollout(blue, serveconfig.Rollout{NewSessions: newSessions, RetireBlueAfter: time.Hour}, "")
	return s
}

// callSide calls read_multiple_files and returns the text of the result
// (which side answered) and whether it is an error result.
func callSide(t *testing.T, c *sdkClient, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func TestBlueGreenSessionsStayOnTheirSide(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{"in-memory", "stateful HTTP"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			clk := clocktest.New(testNow)
			s := startRollout(t, serveconfig.SideBlue, clk)
			var url string
			if tr != "in-memory" {
				url = httpServer(t, s, HTTPOptions{}).URL
			}
			connect := func() *sdkClient {
				if tr == "in-memory" {
					st, ct := mcp.NewInMemoryTransports()
					ss, err := s.Connect(context.Background(), st)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { _ = ss.Close() })
					return newSDKClient(t, ct, "2025-11-25")
				}
				return newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: url}, "2025-11-25")
			}
			paths := map[string]any{"paths": []any{"a"}}

			old := connect() // initializes while new sessions get blue
			if diff := cmp.Diff([]string{"read_file", "read_multiple_files"}, old.toolNames(t)); diff != "" {
				t.Errorf("blue session's list mismatch (-want +got):\n%s", diff)
			}
			if got, _ := callSide(t, old, "read_multiple_files", paths); got != "blue" {
				t.Errorf("blue session's call answered by %q", got)
			}

			s.setNewSessions(serveconfig.SideGreen) // the rollout block now says green
			young := connect()
			if diff := cmp.Diff([]string{"read_multiple_files"}, young.toolNames(t)); diff != "" {
				t.Errorf("green session's list mismatch (-want +got):\n%s", diff)
			}
			if got, _ := callSide(t, young, "read_multiple_files", paths); got != "green" {
				t.Errorf("green session's call answered by %q", got)
			}
			// The old session keeps blue, list and call, including {"paths": []},
			// which only blue's schema accepts.
			if got, isErr := callSide(t, old, "read_multiple_files", map[string]any{"paths": []any{}}); got != "blue" || isErr {
				t.Errorf("blue session's old-shaped call answered by %q (isError %v)", got, isErr)
			}
			if got, _ := callSide(t, old, "read_file", map[string]any{"path": "a"}); got != "blue read_file" {
				t.Errorf("blue session's call of a tool only blue has answered by %q", got)
			}
			st := s.Status().Rollout
			if st == nil {
				t.Fatal("status has no rollout")
			}
			want := RolloutStatus{NewSessions: "green", Blue: "alive", Sessions: map[string]int{"blue": 1, "green": 1}, Calls: map[string]int64{"blue": 3, "green": 1}}
			got := RolloutStatus{NewSessions: st.NewSessions, Blue: st.Blue, Sessions: st.Sessions, Calls: st.Calls}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status mismatch (-want +got):\n%s", diff)
			}
			m := metricsText(t, s)
			for _, line := range []string{`mcpctl_serve_rollout_sessions{side="blue"} 1`, `mcpctl_serve_rollout_sessions{side="green"} 1`, `mcpctl_serve_rollout_calls_total{side="blue"} 3`, "mcpctl_serve_rollout_blue_alive 1"} {
				if !strings.Contains(m, "\n"+line+"\n") {
					t.Errorf("metrics lack %s", line)
				}
			}

			// Retirement: the blue session moves to green with exactly one
			// list_changed; the green session hears nothing; blue stops.
			clk.Fire(t, 0)
			old.waitChanged(t)
			settle(t, s)
			if n, m := old.count.Load(), young.count.Load(); n != 1 || m != 0 {
				t.Errorf("list_changed at retirement: blue session %d (want 1), green session %d (want 0)", n, m)
			}
			if diff := cmp.Diff([]string{"read_multiple_files"}, old.toolNames(t)); diff != "" {
				t.Errorf("moved session's list mismatch (-want +got):\n%s", diff)
			}
			if got, _ := callSide(t, old, "read_multiple_files", paths); got != "green" {
				t.Errorf("moved session's call answered by %q", got)
			}
			waitUntil(t, "blue stopped", func() bool { return s.Status().Rollout.Blue == "stopped" })
			if st := s.Status().Rollout; st.Sessions["blue"] != 0 || st.Sessions["green"] != 2 {
				t.Errorf("sessions after retirement = %v", st.Sessions)
			}
			clk.Fire(t, 0) // a late second firing does nothing
			settle(t, s)
			if n := old.count.Load(); n != 1 {
				t.Errorf("a second retirement sent list_changed again (%d)", n)
			}
		})
	}
}

// A client without a session (stateless streamable HTTP at 2026-07-28 and
// 2025-11-25, and a 2026-07-28 client in memory) lists green; its calls are routed by their shape:
// {"paths": []}, valid only under blue's schema, reaches blue while blue is
// alive and gets green's self-healing error once blue is retired; so does
// a call of a tool green dropped (an unknown tool after retirement).
func TestBlueGreenShapeRoutingStateless(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, version string }{
		{"stateless HTTP 2026-07-28", ""},
		{"stateless HTTP 2025-11-25", "2025-11-25"},
		{"in-memory 2026-07-28", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := clocktest.New(testNow)
			s := startRollout(t, serveconfig.SideGreen, clk)
			var tr mcp.Transport
			if strings.HasPrefix(tc.name, "in-memory") {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.Connect(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = ss.Close() })
				tr = ct
			} else {
				tr = &mcp.StreamableClientTransport{Endpoint: httpServer(t, s, HTTPOptions{Stateless: true}).URL}
			}
			c := newSDKClient(t, tr, tc.version)
			if diff := cmp.Diff([]string{"read_multiple_files"}, c.toolNames(t)); diff != "" {
				t.Errorf("stateless list mismatch (-want +got):\n%s", diff)
			}
			empty := map[string]any{"paths": []any{}}
			for _, tc := range []struct {
				args map[string]any
				want string
			}{
				{map[string]any{"paths": []any{"a"}}, "green"}, // valid on both: green
				{empty, "blue"}, // valid only on blue: blue
				{map[string]any{"paths": []any{"a"}, "x": 1}, "green"}, // blue's schema is closed: green
			} {
				if got, isErr := callSide(t, c, "read_multiple_files", tc.args); got != tc.want || isErr {
					t.Errorf("call %v answered by %q (isError %v), want %s", tc.args, got, isErr, tc.want)
				}
			}
			// A tool green dropped: a call valid under blue's contract, so
			// blue answers it while it lives.
			if got, isErr := callSide(t, c, "read_file", map[string]any{"path": "a"}); got != "blue read_file" || isErr {
				t.Errorf("call of a tool only blue has answered by %q (isError %v)", got, isErr)
			}
			if st := s.Status().Rollout; st.Calls["blue"] != 2 || st.Calls["green"] != 2 {
				t.Errorf("calls per side = %v, want blue 2, green 2", st.Calls)
			}

			clk.Fire(t, 0) // retirement
			waitUntil(t, "blue stopped", func() bool { return s.Status().Rollout.Blue == "stopped" })
			got, isErr := callSide(t, c, "read_multiple_files", empty)
			if !isErr || !strings.Contains(got, "/paths") {
				t.Errorf("after retirement {\"paths\": []} = %q (isError %v), want green's self-healing error about /paths", got, isErr)
			}
			if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a"}}); err == nil {
				t.Error("after retirement a stateless client still reached a tool only blue has")
			}
		})
	}
}

// Blue is stopped only when its last call is done: a blue session's call in
// flight at retirement keeps blue (its handlers) alive; the session moves
// to green at once, and blue stops when the call returns.
func TestBlueGreenInFlightCallKeepsBlue(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		started <- struct{}{}
		<-release
		_, _ = w.Write([]byte("blue, slowly"))
	}))
	t.Cleanup(slow.Close)
	clk := clocktest.New(testNow)
	s, path := startServer(t, greenSideConfig, withClock(clk))
	blueCfg := strings.Replace(blueSideConfig, "handler: {static: {text: blue}}", "handler: {http: {url: \""+slow.URL+"\"}}", 1)
	cfg, err := serveconfig.LoadConfig(writeFile(t, filepath.Dir(path), "blue.yaml", blueCfg))
	if err != nil {
		t.Fatal(err)
	}
	blue, err := s.buildBlue(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.startRollout(blue, serveconfig.Rollout{NewSessions: serveconfig.SideBlue}, "")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := newSDKClient(t, ct, "2025-11-25")

	answer := make(chan string, 1)
	go func() {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_multiple_files", Arguments: map[string]any{"paths": []any{}}})
		if err != nil {
			answer <- err.Error()
			return
		}
		answer <- res.Content[0].(*mcp.TextContent).Text
	}()
	recvWithin(t, "the blue call to start", started)
	clk.Fire(t, 0) // retirement with the call in flight
	c.waitChanged(t)
	if got := s.Status().Rollout.Blue; got != "retired" {
		t.Errorf("blue with a call in flight is %q, want retired", got)
	}
	if got, _ := callSide(t, c, "read_multiple_files", map[string]any{"paths": []any{"a"}}); got != "green" {
		t.Errorf("the moved session's next call answered by %q", got)
	}
	close(release)
	if got := recvWithin(t, "the blue call's answer", answer); got != "blue, slowly" {
		t.Errorf("the call in flight at retirement got %q", got)
	}
	waitUntil(t, "blue stopped", func() bool { return s.Status().Rollout.Blue == "stopped" })
}
