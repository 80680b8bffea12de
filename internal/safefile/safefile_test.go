//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHardening03UnboundedReads: $file: /dev/zero, /dev/urandom, a 1 GB
// file, a symlink to /dev/zero and a FIFO with no writer made serve run out
// of memory or block forever; each is refused at once with a typed error.
func TestHardening03UnboundedReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "config.yaml")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want error
	}{
		{"/dev/zero", ErrNotRegular},
		{"/dev/urandom", ErrNotRegular},
		{big, ErrTooLarge},
		{zeroLink, ErrNotRegular},
		{fifo, ErrNotRegular},
		{dir, ErrNotRegular},
	} {
		if _, err := Read(tc.path, Limits{}); !errors.Is(err, tc.want) {
			t.Errorf("Read(%s) = %v, want %v", tc.path, err, tc.want)
		}
	}
	if _, err := Read(small, Limits{MaxSize: 3}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read over MaxSize = %v, want ErrTooLarge", err)
	}
	if data, err := Read(small, Limits{}); err != nil || string(data) != `{"a":1}` {
		t.Errorf("Read(small) = %q, %v", data, err)
	}
}

// TestHardening08Under: includes confined to the config's folder tree
// after resolving symlinks: ../, absolute paths and symlinks out of it are
// refused; a symlink inside it to a file inside it is read.
func TestHardening08Under(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	root := filepath.Join(top, "cfg")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "schemas/a.json"), "{}")
	write(filepath.Join(top, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(top, "secret.txt"), filepath.Join(root, "out.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("schemas/a.json", filepath.Join(root, "in.json")); err != nil {
		t.Fatal(err)
	}
	read := Under(root, Limits{})
	for _, p := range []string{filepath.Join(root, "../secret.txt"), filepath.Join(top, "secret.txt"), filepath.Join(root, "out.json"), "/etc/passwd"} {
		if _, err := read(p); !errors.Is(err, ErrOutside) {
			t.Errorf("read(%s) = %v, want ErrOutside", p, err)
		}
	}
	for _, p := range []string{filepath.Join(root, "schemas/a.json"), filepath.Join(root, "in.json")} {
		if data, err := read(p); err != nil || string(data) != "{}" {
			t.Errorf("read(%s) = %q, %v", p, data, err)
		}
	}
}

// TestHardening03ReadAll: standard input is bounded like a file.
func TestHardening03ReadAll(t *testing.T) {
	t.Parallel()
	if _, err := ReadAll(strings.NewReader("12345"), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("5 bytes at a limit of 4: %v, want ErrTooLarge", err)
	}
	if data, err := ReadAll(strings.NewReader("1234"), 4); err != nil || string(data) != "1234" {
		t.Errorf("4 bytes at a limit of 4: %q, %v", data, err)
	}
}
