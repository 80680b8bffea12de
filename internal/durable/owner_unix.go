//go:build unix

package durable

import (
	"os"
	"syscall"
)

// foreignOwner reports whether fi belongs to a user other than the one
// the process runs as and root.
func foreignOwner(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid != 0 && int(st.Uid) != os.Geteuid()
}
