//go:build unix

package durable

import (
	"os"
	"syscall"
)

// oNoFollow makes os.OpenFile refuse a symbolic link as the last element.
const oNoFollow = syscall.O_NOFOLLOW

// SyncDir fsyncs a folder, so that a rename or a new file in it survives
// a crash.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
