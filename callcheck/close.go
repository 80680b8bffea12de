package callcheck

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CloseNames returns up to n names from names that look like name (an
// unknown tool or argument name): those within an edit distance of a third
// of name's length (at least 2), or that contain it or are contained in it
// (case-insensitively), closest first, ties in name order.
func CloseNames(name string, names []string, n int) []string {
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

// UnknownTool is the message for a call to a tool the server does not have,
// the same in serve (a protocol error) and replay (outcome unknown-tool):
// `unknown tool "x"`, followed by `; did you mean "a", "b"?` when up to three
// close names exist among names.
func UnknownTool(name string, names []string) string {
	close := CloseNames(name, names, 3)
	if len(close) == 0 {
		return fmt.Sprintf("unknown tool %q", name)
	}
	quoted := make([]string, len(close))
	for i, c := range close {
		quoted[i] = strconv.Quote(c)
	}
	return fmt.Sprintf("unknown tool %q; did you mean %s?", name, strings.Join(quoted, ", "))
}
