package source_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadFileStdinAndDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tools.json":       `{"tools":[{"name":"b"},{"name":"a"}]}`,
		"snaps/b.snap":     `{"name":"b"}`,
		"snaps/a.json":     `{"name":"a"}`,
		"snaps/README.md":  `not a tool`,
		"snaps/sub/c.json": `{"name":"c"}`,
	})
	ctx := context.Background()
	want := `{"tools":[{"name":"a"},{"name":"b"}]}`

	for _, tt := range []struct {
		name, source string
		opts         source.LoadOptions
	}{
		{"absolute file", filepath.Join(dir, "tools.json"), source.LoadOptions{}},
		{"file relative to Dir", "tools.json", source.LoadOptions{Dir: dir}},
		{"stdin", "-", source.LoadOptions{Stdin: strings.NewReader(`[{"name":"a"},{"name":"b"}]`)}},
		{"folder of snapshots", "snaps", source.LoadOptions{Dir: dir}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			set, err := source.Load(ctx, tt.source, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(set.Canonical(false)); got != want {
				t.Errorf("mismatch (-want +got):\n%s", cmp.Diff(want, got))
			}
			if set.Source != tt.source && !(tt.source == "-" && set.Source == "<stdin>") {
				t.Errorf("Source = %q, want %q", set.Source, tt.source)
			}
		})
	}

	set, err := source.Load(ctx, "snaps", source.LoadOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := set.Lookup("b").Source, filepath.Join("snaps", "b.snap"); got != want {
		t.Errorf("tool Source = %q, want %q", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.json":      `{"tools":[{"name":"a"},{"name":"a"}]}`,
		"dup/x.json":    `{"name":"same"}`,
		"dup/y.snap":    `{"name":"same"}`,
		"broken/a.json": `{"name":"a",}`,
		"empty/x.txt":   `x`,
		"sets/all.json": `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
	})
	ctx := context.Background()
	tests := []struct {
		name, source string
		opts         source.LoadOptions
		errSource    string
		offset       int
		msg          string
		is           error
	}{
		{"missing file", "nope.json", source.LoadOptions{Dir: dir}, "nope.json", -1, "cannot read", fs.ErrNotExist},
		{"no stdin", "-", source.LoadOptions{}, "<stdin>", -1, "no standard input", nil},
		{"duplicate names in a file", "bad.json", source.LoadOptions{Dir: dir}, "bad.json", 23, "duplicate tool name", nil},
		{"duplicate names in a folder", "dup", source.LoadOptions{Dir: dir}, "dup", -1,
			`duplicate tool name "same" in files ` + filepath.Join("dup", "x.json") + ", " + filepath.Join("dup", "y.snap"), nil},
		{"bad JSON in a folder", "broken", source.LoadOptions{Dir: dir}, filepath.Join("broken", "a.json"), 12, "want a member name", nil},
		{"a tool set inside a snapshot folder", "sets", source.LoadOptions{Dir: dir}, filepath.Join("sets", "all.json"), 0, "holds one tool object; this one is a whole tool set", nil},
		{"empty folder", "empty", source.LoadOptions{Dir: dir}, "empty", -1, "holds no *.json or *.snap tool files", nil},
		{"bad git source", "git:main", source.LoadOptions{Dir: dir}, "git:main", -1, "want git:REV:PATH", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := source.Load(ctx, tt.source, tt.opts)
			var ie *toolset.InputError
			if !errors.As(err, &ie) || !errors.Is(err, toolset.ErrInput) {
				t.Fatalf("error %v is not an *InputError wrapping ErrInput", err)
			}
			if ie.Source != tt.errSource || ie.Offset != tt.offset || !strings.Contains(ie.Msg, tt.msg) {
				t.Errorf("got Source %q Offset %d Msg %q; want %q, %d, containing %q", ie.Source, ie.Offset, ie.Msg, tt.errSource, tt.offset, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error does not wrap %v", tt.is)
			}
		})
	}
}

// TestLoadGit reads "git:REV:PATH" from a throwaway repository with two
// commits, the CI case of docs/diff.md#inputs.
func TestLoadGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	writeFiles(t, dir, map[string]string{"sub/tools.lock.json": `{"tools":[{"name":"old"}]}`})
	git("add", ".")
	git("commit", "-qm", "one")
	writeFiles(t, dir, map[string]string{"sub/tools.lock.json": `{"tools":[{"name":"new"}]}`})
	git("commit", "-qam", "two")

	ctx := context.Background()
	set, err := source.Load(ctx, "git:HEAD~1:sub/tools.lock.json", source.LoadOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"old"}, set.Names()); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	// PATH is relative to Dir inside the repository, as a user types it.
	set, err = source.Load(ctx, "git:HEAD:tools.lock.json", source.LoadOptions{Dir: filepath.Join(dir, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"new"}, set.Names()); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	_, err = source.Load(ctx, "git:HEAD:missing.json", source.LoadOptions{Dir: dir})
	var ie *toolset.InputError
	if !errors.As(err, &ie) || ie.Source != "git:HEAD:missing.json" || !strings.Contains(ie.Msg, "git show HEAD:./missing.json") {
		t.Errorf("missing path error = %v", err)
	}
}
