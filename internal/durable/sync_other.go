//go:build !unix

package durable

// oNoFollow is 0 where the flag does not exist.
const oNoFollow = 0

// SyncDir is a no-op where folders cannot be synced.
func SyncDir(dir string) error { return nil }
