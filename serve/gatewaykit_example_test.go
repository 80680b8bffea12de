package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/state"
)

// TestGatewayWalkthrough runs examples/gateway/walkthrough.sh (bash, curl)
// against a gateway on a copy of the example, as its README describes,
// with the real server-filesystem releases of e2e/node_modules: without
// --state (the approval as a gate.allow stage, as the acceptance
// command runs it) and with --state (mcpctl approve's admin endpoint).
func TestGatewayWalkthrough(t *testing.T) {
	t.Parallel()
	modules := e2eModules(t, "fs-older", "fs-old", "fs-new")
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	for _, withState := range []bool{false, true} {
		name := map[bool]string{false: "no-state", true: "state"}[withState]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := runGatewayWalkthrough(t, modules, withState)
			want := []string{
				"reload: published (trigger upstream:files); generation 2",
				"reload: quarantined; upstream files: quarantined",
				"breaking input-min-items-raised tool \"read_multiple_files\"",
				`paths as advertised (the accepted 2025.8.18 schema): "paths":{"type":"array"`,
				"checked against 2025.11.25 and forwarded: ok: ",
				`which 2025.11.25 refuses: isError: Upstream "files" changed tool "read_multiple_files" (input-min-items-raised`,
				`paths as advertised now: "paths":{"minItems":1`,
				`session A (connected before): archive_read_multiple_files paths "paths":{"type":"array"`,
				`session B (new):              archive_read_multiple_files paths "paths":{"minItems":1`,
				"session A, [] (blue, 2025.8.18, takes it): ok: (empty text)",
				"session B, [] (green, 2025.11.25, refuses it): isError: invalid arguments",
				"list_changed notifications received by A: 0",
				`"blue": 1,`,
				"list_changed notifications received by A: 1",
				"restored ./release and the config",
			}
			if withState {
				want = append(want, "(the server runs with --state): approving it")
			} else {
				want = append(want, "no --state, so the approval is a gate.allow entry")
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("walkthrough output lacks %q:\n%s", w, text)
				}
			}
			// A newcomer read every tool name twice in step 0: rpc printed
			// an event stream's data line once as data and once as JSON.
			if line := lineWith(text, "session A: tools: "); strings.Count(line, " read_text_file ") != 1 {
				t.Errorf("step 0 does not list each tool once: %q", line)
			}
			// Steps 1 and 3 notify once; step 2 (quarantined) not at all.
			if got := strings.Count(text, "list_changed notifications received: 1"); got != 2 {
				t.Errorf("%d steps with one notification, want 2:\n%s", got, text)
			}
			if !strings.Contains(text, "list_changed notifications received: 0") {
				t.Errorf("the quarantine notified:\n%s", text)
			}
		})
	}
}

// runGatewayWalkthrough copies the example to <tmp>/examples/gateway beside
// <tmp>/e2e/node_modules (a link to modules), serves it and runs the
// walkthrough; it returns the walkthrough's output.
func runGatewayWalkthrough(t *testing.T, modules string, withState bool) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "examples", "gateway")
	copyTree(t, "../examples/gateway", dir)
	if err := os.MkdirAll(filepath.Join(root, "e2e"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(root, "e2e", "node_modules")); err != nil {
		t.Fatal(err)
	}
	opts := Options{ConfigPath: filepath.Join(dir, "mcpctl.serve.yaml")}
	if withState {
		st, err := state.Open(filepath.Join(t.TempDir(), "state"), state.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opts.State = st
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addrs := make(chan string, 2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- s.Run(ctx, RunOptions{HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", Watch: true,
			OnListen: func(kind, addr string) { addrs <- kind + "=" + addr }})
	}()
	env := os.Environ()
	for i := 0; i < 2; i++ {
		kv := recvWithin(t, "the listeners", addrs)
		if addr, ok := strings.CutPrefix(kv, "http="); ok {
			env = append(env, "MCP_URL=http://"+addr+MCPPath)
		} else {
			env = append(env, "ADMIN="+strings.TrimPrefix(kv, "admin="))
		}
	}
	env = append(env, "MCPCTL=/nonexistent/mcpctl") // status and approve through curl
	cmd := exec.Command("bash", filepath.Join(dir, "walkthrough.sh"))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	cancel()
	if rerr := recvWithin(t, "Run to return", done); rerr != nil {
		t.Errorf("Run: %v", rerr)
	}
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s", err, out)
	}
	return string(out)
}

// lineWith returns the first line of text containing sub ("" when none).
func lineWith(text, sub string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
