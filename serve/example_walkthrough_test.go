package serve

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkthrough runs examples/hot-reload/walkthrough.sh (bash and curl)
// against a server on a copy of the example, as its README describes.
func TestWalkthrough(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a shell script")
	}
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	dir := t.TempDir()
	copyTree(t, "../examples/hot-reload", dir)
	s, err := New(context.Background(), Options{ConfigPath: filepath.Join(dir, "mcpctl.serve.yaml")})
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
	env = append(env, "MCPCTL=/nonexistent/mcpctl") // status through curl
	cmd := exec.Command("bash", filepath.Join(dir, "walkthrough.sh"))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	cancel()
	if rerr := recvWithin(t, "Run to return", done); rerr != nil {
		t.Errorf("Run: %v", rerr)
	}
	text := string(out)
	if err != nil {
		t.Fatalf("walkthrough failed: %v\n%s", err, text)
	}
	for _, want := range []string{
		"tools: echo search_notes",
		"reload: published; generation 2",
		"tools: count_notes echo search_notes",
		"reload: refused",
		"tools (unchanged): count_notes echo search_notes",
		"reload: published; generation 3",
		"tools: count_notes search_notes",
		"restored the original config: published",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("walkthrough output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "list_changed notifications received: 1"); n != 2 {
		t.Errorf("want exactly two stages with one notification, got %d:\n%s", n, text)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}
