package cmd

import (
	"os"
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
