//go:build !unix

package serve

// oNoFollow is 0 where the flag does not exist (O_EXCL still refuses an
// existing link).
const oNoFollow = 0
