// Package safefile reads the files mcpctl takes as input (serve configs and
// their $file includes, tool sets, facade files, .mcpctl.yaml) so that no
// file can exhaust memory or block the reader: only regular files are read
// (not /dev/zero, a FIFO, a socket or a folder, also when reached through a
// symlink), at most a size limit, within a time limit. Under confines reads
// to a folder tree after resolving symlinks.
//
//	data, err := safefile.Read(path, safefile.Limits{})    // defaults
//	read := safefile.Under(configDir, lim)                  // for includes
//	data, err = read(filepath.Join(configDir, "schemas/a.json"))
//
// Errors wrap ErrNotRegular, ErrTooLarge, ErrTimeout or ErrOutside, or are
// the operating system's (*fs.PathError); their text does not repeat the
// path, which callers name.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Defaults for Limits.
const (
	DefaultMaxSize int64 = 16 << 20
	DefaultTimeout       = 10 * time.Second
)

// Sentinel errors (match with errors.Is).
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
	ErrTimeout    = errors.New("read timed out")
	ErrOutside    = errors.New("outside the folder")
)

// Limits bound one read; zero fields mean the defaults.
type Limits struct {
	// MaxSize is the largest file read, in bytes.
	MaxSize int64
	// Timeout bounds opening and reading one file.
	Timeout time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.MaxSize <= 0 {
		l.MaxSize = DefaultMaxSize
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// Read returns the contents of the regular file at path (symlinks
// followed), refusing anything else, a file larger than lim.MaxSize and a
// read that takes longer than lim.Timeout. The file is opened without
// blocking (a FIFO with no writer is refused, never waited on).
func Read(path string, lim Limits) ([]byte, error) {
	lim = lim.withDefaults()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := read(path, lim.MaxSize)
		done <- result{data, err}
	}()
	t := time.NewTimer(lim.Timeout)
	defer t.Stop()
	select {
	case r := <-done:
		return r.data, r.err
	case <-t.C:
		// The reader goroutine ends with its read; its result is dropped.
		return nil, fmt.Errorf("%w after %s", ErrTimeout, lim.Timeout)
	}
}

func read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: it is %s", ErrNotRegular, kind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %d bytes, more than the limit of %d", ErrTooLarge, fi.Size(), max)
	}
	return ReadAll(f, max)
}

// ReadAll reads r to its end, refusing more than max bytes (0: the
// default) with an error wrapping ErrTooLarge: for standard input and
// other streams, which have no size to check first.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxSize
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than the limit of %d bytes", ErrTooLarge, max)
	}
	return data, nil
}

// kind names a file mode that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// Under returns a reader confined to the folder tree at root: a path is
// read (as Read does) only when, with symlinks resolved, it lies inside
// root with symlinks resolved; otherwise the error wraps ErrOutside.
func Under(root string, lim Limits) func(path string) ([]byte, error) {
	realRoot, rootErr := resolve(root)
	return func(path string) ([]byte, error) {
		if rootErr != nil {
			return nil, rootErr
		}
		real, err := resolve(path)
		if err != nil {
			return nil, err
		}
		if !within(realRoot, real) {
			return nil, fmt.Errorf("resolves to %s, %w %s", real, ErrOutside, realRoot)
		}
		return Read(real, lim)
	}
}

// resolve makes path absolute and resolves every symlink in it.
func resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether path is root or inside it (both resolved).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// UnwrapPath returns the error an *os.PathError wraps (err itself when it
// is none): the reason without the path, for messages that name the path
// already.
func UnwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
