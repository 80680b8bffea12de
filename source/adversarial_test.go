package source_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

// A git: source's revision was passed to `git show` as its first
// argument, so a revision starting with "-" was an option of git's:
//
//	mcpctl canon 'git:--output=/tmp/x/o:t.json'
//
// made git write a file at /tmp/x/o:./t.json (any path the user can
// write, the folders existing). A revision starting with "-" is now bad
// input, and git never runs.
func TestAdversarialGitSourceOption(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "o:."), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, src := range []string{"git:--output=" + dir + "/o:t.json", "git:-p:t.json"} {
		_, err := source.Load(context.Background(), src, source.LoadOptions{Dir: dir})
		var ie *toolset.InputError
		if !errors.As(err, &ie) || ie.Err != nil {
			t.Errorf("%s: %v, want bad input before git runs", src, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o:.", "t.json")); err == nil {
		t.Errorf("git wrote the file an option in the revision named")
	}
}
