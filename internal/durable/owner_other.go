//go:build !unix

package durable

import "os"

// foreignOwner is false where files have no owning user id.
func foreignOwner(os.FileInfo) bool { return false }
