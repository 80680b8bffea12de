//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHardening03UnboundedReads: a $file that is a FIFO blocked every
// reload forever; a 1 GB $file, or the config replaced by a symlink to
// /dev/zero, ran the server out of memory. Each is now a refused candidate
// saying why, the live generation stays, and the next good config is
// published.
func TestHardening03UnboundedReads(t *testing.T) {
	t.Parallel()
	s, path := startServer(t, baseConfig, func(o *testOptions) { o.MaxFileSize = 1 << 20 })
	dir := filepath.Dir(path)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(1 << 30); err != nil { // sparse
		t.Fatal(err)
	}
	big.Close()
	withInclude := func(file string) string {
		return strings.Replace(baseConfig, "      required: [id]\n", "      required: [id]\n    outputSchema: {$file: "+file+"}\n", 1)
	}
	for _, tc := range []struct{ name, config, want string }{
		{"fifo", withInclude("fifo.json"), "not a regular file: it is a named pipe"},
		{"1 GB", withInclude("big.json"), "file too large: 1073741824 bytes, more than the limit of 1048576"},
		{"config is /dev/zero", "", "not a regular file: it is a character device"},
	} {
		if tc.config == "" {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, dir, filepath.Base(path), tc.config)
		}
		rr := s.Reload(t.Context(), "test")
		if rr.Result != ResultRefused || !strings.Contains(strings.Join(rr.Errors, "\n"), tc.want) {
			t.Errorf("%s: %s %v, want refused saying %q", tc.name, rr.Result, rr.Errors, tc.want)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, filepath.Base(path), strings.Replace(baseConfig, "Keyword", "Full-text", 1))
	if rr := s.Reload(t.Context(), "test"); rr.Result != ResultPublished {
		t.Errorf("good config after the bad ones: %s %v", rr.Result, rr.Errors)
	}
}
