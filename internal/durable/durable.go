// Package durable holds the file primitives of mcpctl's on-disk state:
// a crash-safe whole-file write (temporary file in the same folder, fsync,
// rename, fsync of the folder), an append-only file opened without
// following links, and the check that a folder is private to its owner.
//
//	if err := durable.CheckPrivateDir(dir); errors.Is(err, durable.ErrDirUnsafe) { … }
//	err := durable.WriteFile(filepath.Join(dir, "state.json"), data, 0o600)
package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrDirUnsafe is the error of a folder that its group or others may
// write, or that belongs to another user (neither this process's nor
// root): whoever can write it could plant a file or a link where mcpctl
// writes.
var ErrDirUnsafe = errors.New("the folder is not private to this process's user")

// CheckPrivateDir refuses dir when it is not a folder, when its group or
// others may write it, or when another user owns it (an error wrapping
// ErrDirUnsafe that says which).
func CheckPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%s: %w (mode %04o): use a private folder, or chmod go-w %s", dir, ErrDirUnsafe, perm, dir)
	}
	if foreignOwner(fi) {
		return fmt.Errorf("%s: %w: it belongs to another user, who may replace what is written there; use a folder of your own", dir, ErrDirUnsafe)
	}
	return nil
}

// WriteFile replaces path with data atomically and durably: data goes to
// a new temporary file in the same folder (mode perm), which is synced,
// renamed over path, and the folder synced, so after a crash path holds
// either the old bytes or the new ones, never a mix. Without sync the
// rename may reach the disk before the data (WriteFileNoSync, for
// benchmarks and callers that accept that).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, true)
}

// WriteFileNoSync is WriteFile without the fsyncs: atomic for readers, not
// across a power loss.
func WriteFileNoSync(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, data, perm, false)
}

func writeFile(path string, data []byte, perm os.FileMode, sync bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if err := fill(f, data, perm, sync); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if sync {
		return SyncDir(dir)
	}
	return nil
}

func fill(f *os.File, data []byte, perm os.FileMode, sync bool) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if sync {
		return f.Sync()
	}
	return nil
}

// OpenAppend opens path for appending (created with mode 0600 when
// missing); a symbolic link there is an error, never followed. Each Write
// of a whole line is one write(2) with O_APPEND, so concurrent writers
// never interleave inside a line.
func OpenAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|oNoFollow, 0o600)
}

// CreateNew creates path (0600) for appending; an existing file or link
// there is an error, never opened (O_EXCL, O_NOFOLLOW).
func CreateNew(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|oNoFollow, 0o600)
}
