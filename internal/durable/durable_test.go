package durable

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFile: the file is replaced whole, with the mode asked, and no
// temporary file is left behind.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	for _, data := range []string{"first", "second, longer"} {
		if err := WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(p)
		if string(got) != data {
			t.Errorf("content %q, want %q", got, data)
		}
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want 1", len(entries))
	}
}

func TestCheckPrivateDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrivateDir(dir); err != nil {
		t.Errorf("0700: %v", err)
	}
	for _, mode := range []os.FileMode{0o770, 0o702} {
		os.Chmod(dir, mode)
		if err := CheckPrivateDir(dir); !errors.Is(err, ErrDirUnsafe) {
			t.Errorf("%04o: %v, want ErrDirUnsafe", mode, err)
		}
	}
}

// TestOpenAppendNoFollow: a link where the file should be is refused.
func TestOpenAppendNoFollow(t *testing.T) {
	t.Parallel()
	if oNoFollow == 0 {
		t.Skip("no O_NOFOLLOW here")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "journal.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if f, err := OpenAppend(link); err == nil {
		f.Close()
		t.Error("OpenAppend followed a symbolic link")
	}
}
