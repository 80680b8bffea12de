package diff_test

import (
	"slices"
	"strconv"
)

// minimizeBudget bounds the comparisons one minimization may run.
const minimizeBudget = 600

// minimize delta-debugs a failing pair: it deletes object members and
// array elements — from both sides at once, then from one side — as long as
// the pair still fails with the same kind, shallowest first, until no
// deletion keeps the failure. The root's "type" and "$schema" stay, so the
// pair stays a tool schema of the same dialect.
func minimize(c dfCase, kind string) dfCase {
	budget := minimizeBudget
	for budget > 0 {
		next, ok := reduceOnce(c, kind, &budget)
		if !ok {
			break
		}
		c = next
	}
	return c
}

// reduceOnce returns the first one-step reduction that keeps the failure.
func reduceOnce(c dfCase, kind string, budget *int) (dfCase, bool) {
	paths := memberPaths(c.Old, nil)
	for _, p := range memberPaths(c.New, nil) {
		if !slices.ContainsFunc(paths, func(q []string) bool { return slices.Equal(p, q) }) {
			paths = append(paths, p)
		}
	}
	slices.SortStableFunc(paths, func(a, b []string) int { return len(a) - len(b) })
	for _, p := range paths {
		for _, side := range []string{"both", "old", "new"} {
			x := dfCase{Direction: c.Direction, Old: c.Old, New: c.New, Mutation: c.Mutation}
			changed := false
			if side != "new" {
				x.Old, changed = deleteAt(c.Old, p)
			}
			if side != "old" {
				var ch bool
				x.New, ch = deleteAt(c.New, p)
				changed = changed || ch
			}
			if !changed {
				continue
			}
			if *budget--; *budget < 0 {
				return c, false
			}
			if failsWith(x, kind) {
				return x, true
			}
		}
	}
	return c, false
}

func failsWith(c dfCase, kind string) bool {
	v := judgeCase(c)
	return !v.skip && slices.ContainsFunc(v.failures, func(f dfFailure) bool { return f.Kind == kind })
}

// memberPaths lists the location of every object member and array element.
func memberPaths(v any, ptr []string) [][]string {
	var out [][]string
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedNames(x) {
			if len(ptr) == 0 && (k == "type" || k == "$schema") {
				continue
			}
			p := appendPtr(ptr, k)
			out = append(append(out, p), memberPaths(x[k], p)...)
		}
	case []any:
		for i := range x {
			p := appendPtr(ptr, strconv.Itoa(i))
			out = append(append(out, p), memberPaths(x[i], p)...)
		}
	}
	return out
}

// deleteAt returns a copy of doc without the member or element at ptr.
func deleteAt(doc any, ptr []string) (any, bool) {
	parent := nodeAt(doc, ptr[:len(ptr)-1])
	last := ptr[len(ptr)-1]
	switch x := parent.(type) {
	case map[string]any:
		if _, ok := x[last]; !ok {
			return doc, false
		}
	case []any:
		if i, err := strconv.Atoi(last); err != nil || i >= len(x) {
			return doc, false
		}
	default:
		return doc, false
	}
	out := deepCopy(doc)
	switch x := nodeAt(out, ptr[:len(ptr)-1]).(type) {
	case map[string]any:
		delete(x, last)
	case []any:
		i, _ := strconv.Atoi(last)
		grand := nodeAt(out, ptr[:len(ptr)-2])
		shorter := slices.Delete(x, i, i+1)
		switch g := grand.(type) {
		case map[string]any:
			g[ptr[len(ptr)-2]] = shorter
		case []any:
			j, _ := strconv.Atoi(ptr[len(ptr)-2])
			g[j] = shorter
		}
	}
	return out, true
}
