package callcheck

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CloseNames returns up to n names from names that look like name (an
// unknown tool or argument name): those within an edit distance of a third
// of name's length (at least 2), or that contain it or are contained in it
// (case-insensitively), closest first, ties in name order.
//
// A name longer than MaxSuggestLen gets none: comparing it would cost its
// length times every name's, and no real name is that long.
func CloseNames(name string, names []string, n int) []string {
	if len(name) > MaxSuggestLen {
		return nil
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	lname := strings.ToLower(name)
	limit := max(2, len(name)/3)
	for _, other := range names {
		if other == name {
			continue
		}
		ln := strings.ToLower(other)
		d := EditDistance(lname, ln)
		if d <= limit || (len(lname) >= 3 && strings.Contains(ln, lname)) || (len(ln) >= 3 && strings.Contains(lname, ln)) {
			cs = append(cs, cand{other, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// EditDistance is the optimal string alignment distance of a and b, in
// bytes: insertions, deletions, substitutions and transpositions of
// adjacent bytes cost 1 each. It ranks close names for unknown tools and
// arguments, and "did you mean" suggestions for unknown config keys.
func EditDistance(a, b string) int {
	// d[i][j] is the distance of a[:i] and b[:j]; three rows suffice.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// MaxSuggestLen bounds the names CloseNames looks for close names of, in
// bytes: twice the 128 characters the MCP specification (2025-11-25,
// Server Features › Tools › Tool Names) recommends as a tool name's
// longest.
const MaxSuggestLen = 256

// MaxEchoLen bounds how much of an unknown name a message repeats, in
// bytes; a longer name is cut there (at a UTF-8 boundary) and its length
// given.
const MaxEchoLen = 128

// Echo quotes name for a message, cut to MaxEchoLen bytes:
// "abc…" (4194304 bytes).
func Echo(name string) string {
	if len(name) <= MaxEchoLen {
		return strconv.Quote(name)
	}
	cut := MaxEchoLen
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(name[:cut]+"…"), len(name))
}

// UnknownTool is the message for a call to a tool the server does not have,
// the same in serve (a protocol error) and replay (outcome unknown-tool):
// `unknown tool "x"`, followed by `; did you mean "a", "b"?` when up to three
// close names exist among names. A long name is cut (see Echo).
func UnknownTool(name string, names []string) string {
	close := CloseNames(name, names, 3)
	if len(close) == 0 {
		return "unknown tool " + Echo(name)
	}
	quoted := make([]string, len(close))
	for i, c := range close {
		quoted[i] = strconv.Quote(c)
	}
	return fmt.Sprintf("unknown tool %s; did you mean %s?", Echo(name), strings.Join(quoted, ", "))
}
