package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/state"
)

// The gateway in front of real servers nobody on this project wrote, as
// e2e/ installs them (`npm ci` in e2e/; .ci/run does it and sets
// MCPCTL_E2E=1, which turns a missing package into a failure):
// @modelcontextprotocol/server-filesystem 2025.8.18 (fs-old) and 2025.11.25
// (fs-new), @modelcontextprotocol/server-everything 2025.11.25.

// e2eModules returns the absolute path of e2e/node_modules when node and
// every package in pkgs are there; otherwise it skips the test, or fails it
// under MCPCTL_E2E=1.
func e2eModules(t testing.TB, pkgs ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts node servers")
	}
	missing := func(what string) {
		if os.Getenv("MCPCTL_E2E") == "1" {
			t.Fatalf("MCPCTL_E2E=1 but %s", what)
		}
		t.Skipf("%s; run `npm ci` in e2e/ (and install node) to run this test", what)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("node is not on PATH")
	}
	modules, err := filepath.Abs("../e2e/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(modules, p, "package.json")); err != nil {
			missing("e2e/node_modules/" + p + " is not installed")
		}
	}
	return modules
}

// releaseSwitch is a stdio upstream whose server-filesystem release a test
// changes, as an operator deploys one: write the release, stop the running
// process; the gateway restarts the upstream, which starts the new release.
type releaseSwitch struct {
	dir, data string
}

func newReleaseSwitch(t *testing.T, modules, release string) *releaseSwitch {
	t.Helper()
	dir := t.TempDir()
	r := &releaseSwitch{dir: dir, data: filepath.Join(dir, "data")}
	writeFile(t, r.data, "hello.txt", "hello from the gateway test\n")
	writeFile(t, r.data, "notes.txt", "gateway\n")
	writeFile(t, dir, "release", release)
	script := fmt.Sprintf("#!/bin/sh\necho $$ >%q\nexec node %q/fs-$(cat %q)/dist/index.js %q\n",
		filepath.Join(dir, "pid"), modules, filepath.Join(dir, "release"), r.data)
	if err := os.WriteFile(filepath.Join(dir, "files.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *releaseSwitch) command() string { return filepath.Join(r.dir, "files.sh") }

// deploy switches to release and stops the running server.
func (r *releaseSwitch) deploy(t *testing.T, release string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, r.dir, "release", release)
	var pid int
	if _, err := fmt.Sscan(string(data), &pid); err != nil {
		t.Fatalf("pid file %q: %v", data, err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("stop release (pid %d): %v", pid, err)
	}
}

// toolProperty returns the listed tool's input schema's property prop.
func toolProperty(t *testing.T, c *sdkClient, tool, prop string) map[string]any {
	t.Helper()
	res, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == tool {
			s, _ := tl.InputSchema.(map[string]any)
			props, _ := s["properties"].(map[string]any)
			p, _ := props[prop].(map[string]any)
			return p
		}
	}
	t.Fatalf("no tool %q listed", tool)
	return nil
}

// TestGatewayRealFilesystemMinItemsBreak: server-filesystem 2025.8.18 is
// replaced by 2025.11.25 under the gateway — the real break of
// testdata/realdata (read_multiple_files /properties/paths gains
// minItems: 1, the diff's one breaking finding). The change is quarantined:
// the 2025.8.18 contract stays advertised, nobody is notified, an old call
// valid under both is forwarded, the witness {"paths": []} gets the
// self-healing error naming minItems, /status lists the candidate pending;
// approving it publishes 2025.11.25's list with one list_changed.
func TestGatewayRealFilesystemMinItemsBreak(t *testing.T) {
	t.Parallel()
	modules := e2eModules(t, "fs-old", "fs-new")
	r := newReleaseSwitch(t, modules, "old")
	st, err := state.Open(filepath.Join(t.TempDir(), "state"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := startServer(t, fmt.Sprintf("server: {name: real-fs, version: 1.0.0}\nupstreams:\n  - name: files\n    stdio: [%q]\n", r.command()),
		func(o *testOptions) { o.State = st })
	c := gatewayClient(t, s)
	if p := toolProperty(t, c, "read_multiple_files", "paths"); p == nil || p["minItems"] != nil {
		t.Fatalf("2025.8.18 paths = %v, want no minItems", p)
	}
	r.deploy(t, "new")
	// Quarantined means served so: the live generation holds the
	// quarantine (until then, calls reach 2025.11.25 as sent; pending is
	// recorded first: -race showed the witness refused by the upstream).
	waitUntil(t, "files quarantined", func() bool {
		st := s.upstreamStatus()
		return len(st) == 1 && st[0].State == StateQuarantined
	})
	waitUntil(t, "the 2025.11.25 candidate pending", func() bool { return len(s.Pending()) == 1 })
	p := s.Pending()[0]
	if len(p.Findings) == 0 {
		t.Fatal("pending candidate without findings")
	}
	breaking := 0
	for _, f := range p.Findings {
		if f.Level == diff.Breaking {
			breaking++
			if f.Tool != "read_multiple_files" || !strings.HasPrefix(f.Path, "/properties/paths") {
				t.Errorf("breaking finding %s at %s %s, want read_multiple_files /properties/paths", f.Rule, f.Tool, f.Path)
			}
		}
	}
	if breaking != 1 {
		t.Errorf("%d breaking findings, want 1 (minItems)", breaking)
	}
	if p := toolProperty(t, c, "read_multiple_files", "paths"); p["minItems"] != nil {
		t.Errorf("quarantined, yet paths = %v is advertised", p)
	}
	hello := filepath.Join(r.data, "hello.txt")
	res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_multiple_files", Arguments: map[string]any{"paths": []any{hello}}})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "hello from the gateway test") {
		t.Errorf("old call through the quarantine: %v %s", err, resultText(res))
	}
	res, err = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_multiple_files", Arguments: map[string]any{"paths": []any{}}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "minItems") {
		t.Errorf("witness {paths: []}: want the self-healing error naming minItems, got %v %s", err, resultText(res))
	}
	if n := c.count.Load(); n != 0 {
		t.Errorf("%d list_changed for a quarantined change", n)
	}
	if _, err := s.Approve(context.Background(), Decision{Fingerprint: p.Fingerprint, Reason: "2025.11.25 is intended"}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	c.waitChanged(t)
	if p := toolProperty(t, c, "read_multiple_files", "paths"); p["minItems"] == nil {
		t.Errorf("approved, yet paths = %v", p)
	}
}

// TestGatewayRealEverything: server-everything's tools are served through
// the gateway (prefixed) and callable, and longRunningOperation's progress
// notifications reach the client.
func TestGatewayRealEverything(t *testing.T) {
	t.Parallel()
	modules := e2eModules(t, "@modelcontextprotocol/server-everything")
	server := filepath.Join(modules, "@modelcontextprotocol/server-everything/dist/index.js")
	s, _ := startServer(t, fmt.Sprintf("server: {name: real-everything, version: 1.0.0}\nupstreams:\n  - name: everything\n    stdio: [node, %q, stdio]\n    prefix: ev_\n", server))
	var progress atomic.Int64
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "real-everything", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ev_add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "5") {
		t.Errorf("ev_add: %v %s", err, resultText(res))
	}
	p := &mcp.CallToolParams{Name: "ev_longRunningOperation", Arguments: map[string]any{"duration": 0.3, "steps": 3}}
	p.SetProgressToken("real-1")
	res, err = cs.CallTool(context.Background(), p)
	if err != nil || res.IsError {
		t.Fatalf("ev_longRunningOperation: %v %s", err, resultText(res))
	}
	waitUntil(t, "3 progress notifications", func() bool { return progress.Load() >= 3 })
}
