// Package textcut shortens text for messages and span attributes without
// splitting a UTF-8 sequence.
package textcut

import "unicode/utf8"

// Cut returns s when it has at most n bytes, else its first n bytes or
// fewer (never half a UTF-8 sequence) and "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
