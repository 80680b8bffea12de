//go:build unix

package serve

import "syscall"

// oNoFollow makes os.OpenFile refuse a symbolic link as the last element.
const oNoFollow = syscall.O_NOFOLLOW
