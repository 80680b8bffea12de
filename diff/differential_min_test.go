package diff_test

import (
	"slices"
	"strconv"

	"github.com/mcpctl/mcpctl/diff"
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

// knownItems recognises minimized counterexamples that belong to items 1–10
// of issue 9 ("Verdicts you can trust"), which are being fixed on another
// branch. Each is reported with t.Log as "known (issue 9 item N)" instead of
// failing. Once those fixes are merged, delete this list (and knownItem):
// every counterexample must then fail the test.
var knownItems = []struct {
	item  int
	name  string
	match func(c dfCase, f dfFailure) bool
}{
	{1, "const beside enum", anyNode(func(s map[string]any) bool { return has(s, "const") && has(s, "enum") })},
	{2, "structural keyword beside enum", anyNode(func(s map[string]any) bool {
		return has(s, "enum") && hasAny(s, "items", "prefixItems", "properties", "additionalProperties", "patternProperties", "uniqueItems", "contains", "dependentRequired", "propertyNames", "minProperties", "maxProperties")
	})},
	{3, "format beside enum", anyNode(func(s map[string]any) bool { return has(s, "format") && has(s, "enum") })},
	{4, "minContains", anyNode(func(s map[string]any) bool { return has(s, "minContains") })},
	{5, "false property", anyNode(func(s map[string]any) bool {
		ps, _ := s["properties"].(map[string]any)
		return slices.ContainsFunc(sortedNames(ps), func(k string) bool { return ps[k] == false })
	})},
	{6, "object root domain", func(c dfCase, f dfFailure) bool { return !objectRoot(c.Old) || !objectRoot(c.New) }},
	{7, "equivalent or empty schema", func(c dfCase, f dfFailure) bool { return f.Kind == "unproven" && f.Instance == nil }},
	{8, "output additionalProperties", func(c dfCase, f dfFailure) bool {
		return c.Direction == diff.Output && anyNode(func(s map[string]any) bool { return has(s, "additionalProperties") })(c, f)
	}},
	{9, "anyOf/oneOf widening", func(c dfCase, f dfFailure) bool {
		return f.Kind == "missing-finding" && anyNode(func(s map[string]any) bool { return hasAny(s, "anyOf", "oneOf") })(c, f)
	}},
	// Item 10 (annotation changes never reported) changes no accepted set,
	// so the differential test does not see it.
}

// knownItem returns the issue 9 item a counterexample belongs to, 0 when
// none.
func knownItem(c dfCase, f dfFailure) (int, string) {
	for _, k := range knownItems {
		if k.match(c, f) {
			return k.item, k.name
		}
	}
	return 0, ""
}

// anyNode matches when some subschema of either side satisfies pred.
func anyNode(pred func(map[string]any) bool) func(dfCase, dfFailure) bool {
	return func(c dfCase, _ dfFailure) bool {
		for _, doc := range []any{c.Old, c.New} {
			for _, p := range schemaPointers(doc, nil) {
				if s, ok := nodeAt(doc, p).(map[string]any); ok && pred(s) {
					return true
				}
			}
		}
		return false
	}
}

// objectRoot reports whether a root schema says "type": "object".
func objectRoot(doc any) bool {
	s, _ := doc.(map[string]any)
	return s["type"] == "object"
}

func has(s map[string]any, k string) bool { _, ok := s[k]; return ok }

func hasAny(s map[string]any, ks ...string) bool {
	return slices.ContainsFunc(ks, func(k string) bool { return has(s, k) })
}
