package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `snapshot --client-config FILE -o DIR` refused two servers whose
// lockfile names are equal, but not two whose names differ only in case
// ("GitHub" and "github"): on the case-insensitive file systems of macOS
// and Windows (release targets) the second lockfile silently replaced the
// first. A server named like a Windows device ("con", "NUL", "com1") got
// a lockfile name Windows cannot create (con.lock.json names the
// console). Reproduction:
//
//	{"mcpServers": {"GitHub": {"command": "/bin/false"}, "github": {"command": "/bin/false"}, "con": {…}}}
//	mcpctl snapshot --client-config c.json -o locks
//
// tried both (no clash reported) and named the third con.lock.json.
func TestAdversarialSnapshotLockfileNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, want string }{
		{"con", "_con.lock.json"}, {"NUL", "_NUL.lock.json"}, {"com1", "_com1.lock.json"}, {"Aux.x", "_Aux.x.lock.json"},
		{"lpt9", "_lpt9.lock.json"}, {"console", "console.lock.json"}, {"a/b", "a_b.lock.json"}, {"..", "server.lock.json"},
	} {
		if got := lockfileName(tt.name); got != tt.want {
			t.Errorf("lockfileName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}

	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"GitHub": {"command": "/bin/false"}, "github": {"command": "/bin/false"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLIb(t, "snapshot", "--client-config", cfg, "-o", filepath.Join(dir, "locks"))
	if code != 2 || !strings.Contains(stderr, `server "github": its lockfile github.lock.json would overwrite server "GitHub"'s`) {
		t.Errorf("exit %d, stderr:\n%s\nwant the case clash refused", code, stderr)
	}
}

// The action's diff step passed the lockfile input after `mcpctl diff`
// as an argument that may be read as a flag: a lockfile named
// "-x.json" failed the job with "unknown shorthand flag: 'x'" (exit 2),
// one named "--fail-on=never" with "accepts 2 arg(s), received 1",
// instead of diffing it. Sources now follow "--". Reproduction: action.yml
// with lockfile: -x.json on a pull request that removes a tool.
func TestAdversarialActionLockfileNames(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`
	removed := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
	for _, name := range []string{"-x.json", "--fail-on=never", "tools lock $(touch PWNED).json", "sub dir/quo'te\".json"} {
		dir := gitRepoAt(t, name, base, removed)
		code, out, summary := runAction(t, dir, map[string]string{"lockfile": name})
		if code != ExitFindings || !strings.Contains(out, "tool-removed") || !strings.Contains(summary, "tool-removed") {
			t.Errorf("lockfile %q: exit %d, output:\n%s", name, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
			t.Errorf("lockfile %q: a command in its name ran", name)
		}
	}
}

// gitRepoAt is gitRepo with the lockfile at path name.
func gitRepoAt(t *testing.T, name, base, head string) string {
	t.Helper()
	upstream, clone := t.TempDir(), t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(dir, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(upstream, "init", "-q")
	write(upstream, base)
	git(upstream, "add", "-A", ".")
	git(upstream, "commit", "-qm", "base")
	git(clone, "clone", "-q", upstream, ".")
	git(clone, "checkout", "-qb", "pr")
	write(clone, head)
	return clone
}
