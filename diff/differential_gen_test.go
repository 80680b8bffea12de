package diff_test

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// This file is the differential test's own instance generator. It knows
// nothing of the engine: it reads a schema document as decoded JSON and
// proposes values from it — boundary values of every bound, enum, const,
// default and example members, each property present and absent, values of
// other types — ordering the ones the validator accepts at that subschema
// first, so that objects built from them are likely valid.

const (
	genMaxDepth = 6  // deeper subschemas get only type confusion
	genPerNode  = 10 // values kept per nested subschema
	genPerRoot  = 160
)

// instances returns candidate root instances of a schema document: objects
// only, since tool arguments and structured results are JSON objects.
func instances(doc any, j *judge) []any {
	g := &igen{root: doc, j: j}
	var out []any
	for _, v := range g.values(doc, nil, 0, genPerRoot) {
		if _, ok := v.(map[string]any); ok {
			out = append(out, v)
		}
	}
	return out
}

type igen struct {
	root any
	j    *judge
}

// values proposes instances for the subschema node found at ptr, valid
// ones first, at most limit.
func (g *igen) values(node any, ptr []string, depth, limit int) []any {
	var cands []any
	if depth <= genMaxDepth {
		cands = g.fromSchema(node, ptr, depth)
	}
	cands = append(cands, confusion()...)
	return g.rank(uniq(cands), ptr, limit)
}

// rank puts the values the subschema accepts first and cuts at limit.
func (g *igen) rank(cands []any, ptr []string, limit int) []any {
	var good, bad []any
	for _, c := range cands {
		if ok, known := g.j.validAt(ptr, c); ok || !known {
			good = append(good, c)
		} else {
			bad = append(bad, c)
		}
	}
	out := append(good, bad...)
	if len(out) > limit {
		// keep some invalid values: they are the other half of a boundary
		keep := min(len(good), limit*3/4)
		out = append(good[:keep:keep], bad[:min(len(bad), limit-keep)]...)
	}
	return out
}

// fromSchema proposes values from the keywords of one schema node.
func (g *igen) fromSchema(node any, ptr []string, depth int) []any {
	s, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	var out []any
	if ref, ok := s["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if target, tptr, ok := g.resolve(ref); ok {
			out = append(out, g.values(target, tptr, depth+1, genPerNode)...)
		}
	}
	out = append(out, members(s)...)
	ts := typesOfNode(s)
	if ts["string"] {
		out = append(out, stringValues(s)...)
	}
	if ts["number"] || ts["integer"] {
		out = append(out, numberValues(s, !ts["number"])...)
	}
	if ts["array"] {
		out = append(out, g.arrayValues(s, ptr, depth)...)
	}
	if ts["object"] {
		out = append(out, g.objectValues(s, ptr, depth)...)
	}
	return append(out, g.branchValues(s, ptr, depth)...)
}

// members lists the literal values a schema names.
func members(s map[string]any) []any {
	var out []any
	if e, ok := s["enum"].([]any); ok {
		out = append(out, e...)
	}
	for _, k := range []string{"const", "default"} {
		if v, ok := s[k]; ok {
			out = append(out, v)
		}
	}
	if e, ok := s["examples"].([]any); ok {
		out = append(out, e...)
	}
	return out
}

// branchValues proposes values of composition branches.
func (g *igen) branchValues(s map[string]any, ptr []string, depth int) []any {
	var out []any
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if a, ok := s[k].([]any); ok {
			for i, b := range a {
				out = append(out, g.values(b, appendPtr(ptr, k, strconv.Itoa(i)), depth+1, genPerNode/2)...)
			}
		}
	}
	for _, k := range []string{"if", "then", "else", "not"} {
		if b, ok := s[k]; ok {
			out = append(out, g.values(b, appendPtr(ptr, k), depth+1, genPerNode/2)...)
		}
	}
	return out
}

// resolve follows a local JSON Pointer reference.
func (g *igen) resolve(ref string) (any, []string, bool) {
	frag := strings.TrimPrefix(ref, "#")
	if frag == "" {
		return g.root, nil, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, nil, false
	}
	var ptr []string
	cur := g.root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, nil, false
		}
		ptr = append(ptr, tok)
	}
	return cur, ptr, true
}

// typesOfNode returns the instance types a node is about: its declared
// types, else those its keywords suggest, else all.
func typesOfNode(s map[string]any) map[string]bool {
	ts := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		ts[t] = true
	case []any:
		for _, e := range t {
			if n, ok := e.(string); ok {
				ts[n] = true
			}
		}
	}
	if len(ts) > 0 {
		return ts
	}
	hints := map[string][]string{
		"string": {"minLength", "maxLength", "pattern", "format"},
		"number": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
		"array":  {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"},
		"object": {"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired"},
	}
	for t, kws := range hints {
		for _, k := range kws {
			if _, ok := s[k]; ok {
				ts[t] = true
			}
		}
	}
	if len(ts) == 0 {
		for _, t := range []string{"string", "number", "array", "object"} {
			ts[t] = true
		}
	}
	return ts
}

// confusion is one value of every type.
func confusion() []any {
	return []any{nil, true, false, json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("1.5"), "", "x", []any{}, map[string]any{}}
}

// stringValues proposes strings at the length bounds and for formats.
func stringValues(s map[string]any) []any {
	out := []any{"a", "ab", "abc", "ABC", "a-b_c", "123", "2024-01-02", "2024-01-02T03:04:05Z", "a@b.co", "https://example.com/x", "zz"}
	for _, k := range []string{"minLength", "maxLength"} {
		if n, ok := intValue(s[k]); ok {
			for _, l := range []int{n - 1, n, n + 1} {
				if l >= 0 && l <= 64 {
					out = append(out, strings.Repeat("a", l))
				}
			}
		}
	}
	return out
}

// numberValues proposes numbers around every bound and multiple.
func numberValues(s map[string]any, intOnly bool) []any {
	pts := []float64{0, 1, -1, 2, 1.5, 100, 1000}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if f, ok := floatValue(s[k]); ok {
			pts = append(pts, f, f-1, f+1, f-0.5, f+0.5)
		}
	}
	if f, ok := floatValue(s["multipleOf"]); ok && f > 0 {
		pts = append(pts, f, 2*f, 3*f, f/2, -f)
	}
	var out []any
	for _, p := range pts {
		if intOnly && p != math.Trunc(p) {
			continue
		}
		out = append(out, json.Number(strconv.FormatFloat(p, 'f', -1, 64)))
	}
	return out
}

// arrayValues proposes arrays at the size bounds, from item values, with
// duplicates and contained values.
func (g *igen) arrayValues(s map[string]any, ptr []string, depth int) []any {
	var items []any
	if it, ok := s["items"]; ok {
		if _, tuple := it.([]any); !tuple {
			items = g.values(it, appendPtr(ptr, "items"), depth+1, 4)
		}
	}
	if items == nil {
		items = []any{"a", json.Number("1")}
	}
	out := []any{[]any{}, []any{items[0], items[0]}, items}
	for _, v := range items {
		out = append(out, []any{v})
	}
	if c, ok := s["contains"]; ok {
		for _, v := range g.values(c, appendPtr(ptr, "contains"), depth+1, 3) {
			out = append(out, []any{v}, []any{v, v}, []any{items[0], v})
		}
	}
	if t := g.tuple(s, ptr, depth); t != nil {
		out = append(out, t, append(t, items[0]))
	}
	for _, k := range []string{"minItems", "maxItems", "minContains", "maxContains"} {
		if n, ok := intValue(s[k]); ok {
			for _, l := range []int{n - 1, n, n + 1} {
				if l >= 0 && l <= 12 {
					out = append(out, repeat(items[0], l), cycle(items, l))
				}
			}
		}
	}
	return out
}

// tuple builds the positional prefix of a prefixItems (or draft-07 array
// items) schema from each position's first value.
func (g *igen) tuple(s map[string]any, ptr []string, depth int) []any {
	key := "prefixItems"
	pi, ok := s[key].([]any)
	if !ok {
		key = "items"
		if pi, ok = s[key].([]any); !ok {
			return nil
		}
	}
	var t []any
	for i, p := range pi {
		vs := g.values(p, appendPtr(ptr, key, strconv.Itoa(i)), depth+1, 2)
		t = append(t, vs[0])
	}
	return t
}

func repeat(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func cycle(vs []any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = vs[i%len(vs)]
	}
	return out
}

// objectValues proposes objects: the required properties filled with
// their first (valid-first) value, then each property present with each
// of a few values, each absent, and an extra property.
func (g *igen) objectValues(s map[string]any, ptr []string, depth int) []any {
	props, req := g.propertyFacets(s, ptr)
	vals := map[string][]any{}
	base, full := map[string]any{}, map[string]any{}
	for _, p := range sortedNames(props) {
		vals[p] = g.values(props[p].node, props[p].ptr, depth+1, genPerNode)
		if len(vals[p]) > 0 {
			full[p] = vals[p][0]
			if req[p] {
				base[p] = vals[p][0]
			}
		}
	}
	for p := range req {
		if _, ok := base[p]; !ok {
			base[p], full[p] = "x", "x" // required but not declared
		}
	}
	out := []any{base, full, with(base, "zz_extra", "x"), with(base, "zz_extra", json.Number("1"))}
	for _, p := range sortedNames(props) {
		out = append(out, without(base, p), without(full, p))
		for i, v := range vals[p] {
			if i >= 5 {
				break
			}
			out = append(out, with(base, p, v), with(full, p, v))
		}
	}
	if ap, ok := s["additionalProperties"]; ok {
		for _, v := range g.values(ap, appendPtr(ptr, "additionalProperties"), depth+1, 3) {
			out = append(out, with(base, "zz_extra", v))
		}
	}
	return append(out, patternKeyed(s, base)...)
}

// patternKeyed proposes objects with a key for each patternProperties
// pattern (from a few simple spellings).
func patternKeyed(s map[string]any, base map[string]any) []any {
	pp, ok := s["patternProperties"].(map[string]any)
	if !ok {
		return nil
	}
	var out []any
	for _, pat := range sortedNames(pp) {
		key := strings.Trim(pat, "^$.*+")
		out = append(out, with(base, key, "x"), with(base, key, json.Number("1")), with(base, key+"1", true))
	}
	return out
}

type located struct {
	node any
	ptr  []string
}

// propertyFacets merges the properties and required names of a node and
// of its allOf branches (an instance must satisfy all of them).
func (g *igen) propertyFacets(s map[string]any, ptr []string) (map[string]located, map[string]bool) {
	props := map[string]located{}
	req := map[string]bool{}
	add := func(s map[string]any, ptr []string) {
		if ps, ok := s["properties"].(map[string]any); ok {
			for k, v := range ps {
				if _, dup := props[k]; !dup {
					props[k] = located{v, appendPtr(ptr, "properties", k)}
				}
			}
		}
		if r, ok := s["required"].([]any); ok {
			for _, e := range r {
				if n, ok := e.(string); ok {
					req[n] = true
				}
			}
		}
	}
	add(s, ptr)
	if a, ok := s["allOf"].([]any); ok {
		for i, b := range a {
			if bm, ok := b.(map[string]any); ok {
				add(bm, appendPtr(ptr, "allOf", strconv.Itoa(i)))
			}
		}
	}
	return props, req
}

func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func without(m map[string]any, k string) map[string]any {
	out := make(map[string]any, len(m))
	for a, b := range m {
		if a != k {
			out[a] = b
		}
	}
	return out
}

func appendPtr(ptr []string, toks ...string) []string {
	return append(append([]string(nil), ptr...), toks...)
}

// uniq drops repeated values (by their JSON encoding).
func uniq(vs []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, v := range vs {
		k := string(mustJSON(v))
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

func intValue(v any) (int, bool) {
	f, ok := floatValue(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1e6 {
		return 0, false
	}
	return int(f), true
}

func floatValue(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}
