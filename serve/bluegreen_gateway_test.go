package serve

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/internal/upstreamtest"
	"github.com/mcpctl/mcpctl/toolset"
)

// Blue/green in front of real MCP servers: two go-sdk upstreams (the
// internal/upstreamtest kit) over loopback streamable HTTP, blue serving
// server-filesystem 2025.8.18's read_multiple_files and read_file, green
// 2025.11.25's read_multiple_files (paths gained minItems: 1; read_file
// left out). Each upstream counts the calls it answered, so a test knows
// which side took a call.

// fsTool is a read_multiple_files whose paths have minItems when min > 0.
func fsTool(min int) *mcp.Tool {
	paths := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	if min > 0 {
		paths["minItems"] = min
	}
	return &mcp.Tool{Name: "read_multiple_files", Description: "Read several files.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"paths": paths}, "required": []any{"paths"}}}
}

// sides starts the blue and green upstreams and returns them with a
// gateway config fronting them (rollout.newSessions: newSessions).
func sides(t *testing.T, newSessions string) (blue, green *upstreamtest.Upstream, config string) {
	t.Helper()
	blue, green, blueURL, greenURL := sideServers(t)
	return blue, green, sidesConfig(blueURL, greenURL, newSessions)
}

// sideServers starts the blue and green upstreams over loopback HTTP.
func sideServers(t *testing.T) (blue, green *upstreamtest.Upstream, blueURL, greenURL string) {
	t.Helper()
	blue = upstreamtest.New(&upstreamtest.Options{Name: "server-filesystem", Version: "2025.8.18"}, fsTool(0),
		&mcp.Tool{Name: "read_file", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}})
	green = upstreamtest.New(&upstreamtest.Options{Name: "server-filesystem", Version: "2025.11.25"}, fsTool(1))
	bs, gs := httptest.NewServer(blue.HTTPHandler()), httptest.NewServer(green.HTTPHandler())
	t.Cleanup(func() {
		for _, hs := range []*httptest.Server{bs, gs} {
			hs.CloseClientConnections()
			hs.Close()
		}
	})
	return blue, green, bs.URL, gs.URL
}

func sidesConfig(blueURL, greenURL, newSessions string) string {
	return `upstreams:
  - name: files
    blue:  {http: {url: "` + blueURL + `"}}
    green: {http: {url: "` + greenURL + `"}}
    rollout: {newSessions: ` + newSessions + `, retireBlueAfter: 1h}
`
}

// took calls tool and reports which upstream answered ("blue", "green",
// or "error: …" for an isError result).
func took(t *testing.T, c *sdkClient, blue, green *upstreamtest.Upstream, tool string, args map[string]any) string {
	t.Helper()
	b, g := blue.Calls(), green.Calls()
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	switch {
	case err != nil:
		return "protocol error: " + err.Error()
	case res.IsError:
		return "error: " + res.Content[0].(*mcp.TextContent).Text
	case blue.Calls() == b+1 && green.Calls() == g:
		return "blue"
	case green.Calls() == g+1 && blue.Calls() == b:
		return "green"
	}
	return "both or neither"
}

func TestBlueGreenGateway(t *testing.T) {
	t.Parallel()
	blue, green, config := sides(t, "blue")
	clk := clocktest.New(testNow)
	s, path := startServer(t, config, withClock(clk))
	hs := httpServer(t, s, HTTPOptions{})
	stateless := httpServer(t, s, HTTPOptions{Stateless: true})
	empty, one := map[string]any{"paths": []any{}}, map[string]any{"paths": []any{"a"}}

	old := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "2025-11-25")
	if d := cmp.Diff([]string{"read_file", "read_multiple_files"}, old.toolNames(t)); d != "" {
		t.Errorf("blue session's list mismatch (-want +got):\n%s", d)
	}
	if got := took(t, old, blue, green, "read_multiple_files", empty); got != "blue" {
		t.Errorf("blue session's call: %s", got)
	}

	// The operator turns new sessions to green: a reload of the rollout
	// block; the running rollout (and blue) stay.
	writeFile(t, filepath.Dir(path), filepath.Base(path), strings.Replace(config, "newSessions: blue", "newSessions: green", 1))
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s %v", res.Result, res.Errors)
	}
	young := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "2025-11-25")
	if d := cmp.Diff([]string{"read_multiple_files"}, young.toolNames(t)); d != "" {
		t.Errorf("green session's list mismatch (-want +got):\n%s", d)
	}
	if got := took(t, young, blue, green, "read_multiple_files", one); got != "green" {
		t.Errorf("green session's call: %s", got)
	}
	if got := took(t, young, blue, green, "read_multiple_files", empty); !strings.HasPrefix(got, "error: ") || !strings.Contains(got, "/paths") {
		t.Errorf("green session's blue-shaped call: %s, want green's self-healing error", got)
	}
	if got := took(t, old, blue, green, "read_file", map[string]any{"path": "a"}); got != "blue" {
		t.Errorf("blue session's call of a tool only blue has: %s", got)
	}

	// Clients without a session (2026-07-28, and stateless HTTP at
	// 2025-11-25) see green and are routed by shape.
	var c *sdkClient
	for _, version := range []string{"", "2025-11-25"} {
		c = newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: stateless.URL}, version)
		if d := cmp.Diff([]string{"read_multiple_files"}, c.toolNames(t)); d != "" {
			t.Errorf("stateless list (revision %q) mismatch (-want +got):\n%s", version, d)
		}
		for _, tc := range []struct {
			args map[string]any
			want string
		}{{one, "green"}, {empty, "blue"}} {
			if got := took(t, c, blue, green, "read_multiple_files", tc.args); got != tc.want {
				t.Errorf("stateless call %v (revision %q): %s, want %s", tc.args, version, got, tc.want)
			}
		}
	}
	st := s.Status().Rollout
	if d := cmp.Diff(map[string]int{"blue": 1, "green": 1}, st.Sessions); d != "" || st.NewSessions != "green" || st.Blue != "alive" {
		t.Errorf("status %+v; sessions mismatch (-want +got):\n%s", st, d)
	}

	// Retirement: the blue session moves with one list_changed, blue stops
	// and its connection is closed.
	clk.Fire(t, 0)
	old.waitChanged(t)
	settle(t, s)
	if n, m := old.count.Load(), young.count.Load(); n != 1 || m != 0 {
		t.Errorf("list_changed at retirement: blue session %d (want 1), green session %d (want 0)", n, m)
	}
	if got := took(t, old, blue, green, "read_multiple_files", one); got != "green" {
		t.Errorf("moved session's call: %s", got)
	}
	if got := took(t, c, blue, green, "read_multiple_files", empty); !strings.HasPrefix(got, "error: ") {
		t.Errorf("stateless blue-shaped call after retirement: %s, want green's self-healing error", got)
	}
	waitUntil(t, "blue stopped", func() bool { return s.Status().Rollout.Blue == "stopped" })
	waitUntil(t, "blue's connection closed", func() bool {
		n := 0
		for range blue.Server().Sessions() {
			n++
		}
		return n == 0
	})
	// A later reload of the same sides does not start blue again.
	writeFile(t, filepath.Dir(path), filepath.Base(path), config+"# the same sides\n")
	if res := s.Reload(context.Background(), "test"); res.Result == ResultRefused {
		t.Fatalf("reload: %s %v", res.Result, res.Errors)
	}
	if st := s.Status().Rollout; st.Blue != "stopped" {
		t.Errorf("blue after a reload of the same sides: %s", st.Blue)
	}
}

// The usual rollout: an upstream served from one connection gets blue and
// green sides, blue being the release it served. The sessions connected
// then stay on blue, untold (their list did not change); new sessions get
// green; at retirement the old sessions move with one list_changed. (Green
// is gated against the live contract like any candidate: its breaking
// minItems needs permission, here --allow-breaking.)
func TestBlueGreenRolloutStartKeepsConnectedSessionsOnBlue(t *testing.T) {
	t.Parallel()
	blue, green, blueURL, greenURL := sideServers(t)
	clk := clocktest.New(testNow)
	s, path := startServer(t, "upstreams:\n  - name: files\n    http: {url: \""+blueURL+"\"}\n", withClock(clk), func(o *testOptions) { o.AllowBreaking = true })
	hs := httpServer(t, s, HTTPOptions{})
	old := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "2025-11-25")
	if d := cmp.Diff([]string{"read_file", "read_multiple_files"}, old.toolNames(t)); d != "" {
		t.Fatalf("list before the rollout mismatch (-want +got):\n%s", d)
	}

	writeFile(t, filepath.Dir(path), filepath.Base(path), sidesConfig(blueURL, greenURL, "green"))
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload: %s %v", res.Result, res.Errors)
	}
	settle(t, s)
	if n := old.count.Load(); n != 0 {
		t.Errorf("the connected session got %d list_changed at the rollout's start, want 0", n)
	}
	if d := cmp.Diff([]string{"read_file", "read_multiple_files"}, old.toolNames(t)); d != "" {
		t.Errorf("connected session's list mismatch (-want +got):\n%s", d)
	}
	if got := took(t, old, blue, green, "read_multiple_files", map[string]any{"paths": []any{}}); got != "blue" {
		t.Errorf("connected session's call: %s", got)
	}
	young := newSDKClient(t, &mcp.StreamableClientTransport{Endpoint: hs.URL}, "2025-11-25")
	if got := took(t, young, blue, green, "read_multiple_files", map[string]any{"paths": []any{"a"}}); got != "green" {
		t.Errorf("new session's call: %s", got)
	}

	clk.Fire(t, 0) // retirement
	old.waitChanged(t)
	settle(t, s)
	if n, m := old.count.Load(), young.count.Load(); n != 1 || m != 0 {
		t.Errorf("list_changed at retirement: old session %d (want 1), new session %d (want 0)", n, m)
	}
	if d := cmp.Diff([]string{"read_multiple_files"}, old.toolNames(t)); d != "" {
		t.Errorf("moved session's list mismatch (-want +got):\n%s", d)
	}
	waitUntil(t, "blue stopped", func() bool { return s.Status().Rollout.Blue == "stopped" })
}

// A blue side that cannot start refuses the config with a located error
// naming the side; nothing is served.
func TestBlueGreenBlueCannotStart(t *testing.T) {
	t.Parallel()
	_, _, _, greenURL := sideServers(t)
	dead := httptest.NewServer(nil)
	deadURL := dead.URL
	dead.Close() // nothing listens there now
	path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", sidesConfig(deadURL, greenURL, "green"))
	_, err := New(context.Background(), Options{ConfigPath: path, UpstreamBackoff: time.Millisecond})
	if err == nil {
		t.Fatal("New served a config whose blue side cannot start")
	}
	if !errors.Is(err, toolset.ErrInput) {
		t.Errorf("error does not wrap toolset.ErrInput: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `mcpctl.serve.yaml:2:5: blue side: upstream "files"`) {
		t.Errorf("error %q does not name the blue side, the upstream and where it is written", msg)
	}
}
