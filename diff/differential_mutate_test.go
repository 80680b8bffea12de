package diff_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// This file makes the differential test's schema pairs: one or two
// mutations of a real schema, each on one subschema and one keyword —
// added, removed, changed (tightened or loosened: both values are drawn at
// random), moved behind a $ref, or wrapped in allOf/anyOf/oneOf.

// mutatePair applies one or two mutations to a copy of base.Old.
func mutatePair(rng *rand.Rand, base dfCase) dfCase {
	c := dfCase{Direction: base.Direction, Old: deepCopy(base.Old), New: deepCopy(base.Old)}
	n := 1 + rng.IntN(2)
	var what []string
	for i := 0; i < n; i++ {
		what = append(what, mutateOnce(rng, &c))
	}
	c.Mutation = strings.Join(what, "; ")
	return c
}

// mutateOnce picks a subschema present on both sides and changes it.
func mutateOnce(rng *rand.Rand, c *dfCase) string {
	ptrs := schemaPointers(c.New, nil)
	for range 8 {
		ptr := ptrs[rng.IntN(len(ptrs))]
		on, ok1 := nodeAt(c.Old, ptr).(map[string]any)
		nn, ok2 := nodeAt(c.New, ptr).(map[string]any)
		if !ok1 || !ok2 {
			continue
		}
		m := &mutator{rng: rng, c: c, ptr: ptr, on: on, nn: nn, draft07: isDraft07(c.Old)}
		if what := m.apply(); what != "" {
			return what + " at " + pointerString(ptr)
		}
	}
	return "nothing"
}

type mutator struct {
	rng     *rand.Rand
	c       *dfCase
	ptr     []string
	on, nn  map[string]any // the node in old and new
	draft07 bool
}

// apply makes one change at the node; "" when the chosen one does not
// apply there.
func (m *mutator) apply() string {
	switch r := m.rng.IntN(20); {
	case r == 0 && len(m.ptr) > 0:
		return m.moveBehindRef()
	case r == 1 && len(m.ptr) > 0:
		return m.wrap()
	case r == 2:
		return m.propertyChange()
	case r == 3:
		return m.requiredChange()
	case r == 4:
		return m.enumChange()
	}
	kw := m.keyword()
	if kw == "" {
		return ""
	}
	vals := keywordValues(kw, m.on, m.draft07)
	switch m.rng.IntN(3) {
	case 0: // added
		m.nn[kw] = pick(m.rng, vals)
		return kw + " added"
	case 1: // removed
		if _, ok := m.on[kw]; !ok {
			m.on[kw] = pick(m.rng, vals)
		}
		delete(m.nn, kw)
		return kw + " removed"
	}
	if _, ok := m.on[kw]; !ok {
		m.on[kw] = pick(m.rng, vals)
	}
	m.nn[kw] = pick(m.rng, vals)
	return fmt.Sprintf("%s changed %s → %s", kw, mustJSON(m.on[kw]), mustJSON(m.nn[kw]))
}

// keyword picks a keyword, mostly one that applies to the node's type.
func (m *mutator) keyword() string {
	byType := map[string][]string{
		"string":  {"minLength", "maxLength", "pattern", "format"},
		"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
		"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
		"array":   {"items", "minItems", "maxItems", "uniqueItems", "contains", "prefixItems", "minContains", "maxContains"},
		"object":  {"additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired"},
	}
	any := []string{"type", "const", "not", "if", "default", "description", "title", "examples", "deprecated"}
	var kws []string
	if t, ok := m.on["type"].(string); ok && m.rng.IntN(5) > 0 {
		kws = byType[t]
	}
	if len(kws) == 0 || m.rng.IntN(4) == 0 {
		kws = append(slices.Clone(any), byType["string"]...)
		for _, t := range []string{"number", "array", "object"} {
			kws = append(kws, byType[t]...)
		}
	}
	kw := kws[m.rng.IntN(len(kws))]
	if kw == "type" && len(m.ptr) == 0 {
		return "" // tool schemas stay objects
	}
	if m.draft07 && slices.Contains([]string{"prefixItems", "minContains", "maxContains", "dependentRequired", "deprecated"}, kw) {
		return ""
	}
	return kw
}

// keywordValues is the value domain a mutated keyword draws from.
func keywordValues(kw string, node map[string]any, draft07 bool) []any {
	num := func(ns ...string) []any {
		out := make([]any, len(ns))
		for i, n := range ns {
			out[i] = json.Number(n)
		}
		return out
	}
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	switch kw {
	case "type":
		return []any{"string", "integer", "number", "boolean", "array", "object", "null", []any{"string", "null"}, []any{"integer", "string"}}
	case "const":
		return append(members(node), "a", json.Number("1"), nil)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return num("-1", "0", "1", "2", "10", "100", "1.5")
	case "multipleOf":
		return num("1", "2", "3", "0.5", "10")
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		return num("0", "1", "2", "3", "5")
	case "pattern":
		return []any{"^a", "^[a-z]+$", "b", "^.{0,3}$", "^[0-9]+$"}
	case "format":
		return []any{"date", "email", "uri", "date-time"}
	case "uniqueItems", "deprecated":
		return []any{true, false}
	case "items", "contains", "not", "additionalProperties":
		return []any{str, integer, map[string]any{}, map[string]any{"const": "a"}, false, true}
	case "prefixItems":
		return []any{[]any{str}, []any{integer, str}}
	case "patternProperties":
		return []any{map[string]any{"^x": integer}, map[string]any{"^o": str}}
	case "propertyNames":
		return []any{map[string]any{"maxLength": json.Number("3")}, map[string]any{"pattern": "^[a-z]+$"}}
	case "dependentRequired":
		names := propertyNames(node)
		if len(names) < 2 {
			return []any{map[string]any{"a": []any{"b"}}}
		}
		return []any{map[string]any{names[0]: []any{names[1]}}, map[string]any{names[1]: []any{names[0]}}}
	case "if":
		return []any{map[string]any{"type": "string"}, map[string]any{"required": []any{"a"}}}
	case "default", "examples":
		return []any{"a", json.Number("1"), []any{"a"}}
	}
	return []any{"text one", "text two"} // description, title
}

// propertyChange adds a property to the new side, removes one from it, or
// adds one to the old side.
func (m *mutator) propertyChange() string {
	names := propertyNames(m.on)
	vals := []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}, false, true, map[string]any{}}
	props := func(s map[string]any) map[string]any {
		p, ok := s["properties"].(map[string]any)
		if !ok {
			p = map[string]any{}
			s["properties"] = p
		}
		return p
	}
	switch {
	case len(names) > 0 && m.rng.IntN(2) == 0:
		n := names[m.rng.IntN(len(names))]
		delete(props(m.nn), n)
		return "property " + n + " removed"
	case m.rng.IntN(2) == 0:
		props(m.on)["zp"] = pick(m.rng, vals)
		return "property zp removed"
	}
	props(m.nn)["zp"] = pick(m.rng, vals)
	return "property zp added"
}

// requiredChange adds a name to the new side's required, or removes one.
func (m *mutator) requiredChange() string {
	names := append(propertyNames(m.on), "zq")
	req, _ := m.nn["required"].([]any)
	if len(req) > 0 && m.rng.IntN(2) == 0 {
		i := m.rng.IntN(len(req))
		m.nn["required"] = slices.Delete(slices.Clone(req), i, i+1)
		return fmt.Sprintf("required %v removed", req[i])
	}
	n := names[m.rng.IntN(len(names))]
	if slices.Contains(req, any(n)) {
		return ""
	}
	m.nn["required"] = append(slices.Clone(req), n)
	return "required " + n + " added"
}

// enumChange removes a member from the new side's enum, adds one, or adds
// an enum.
func (m *mutator) enumChange() string {
	e, ok := m.on["enum"].([]any)
	if !ok {
		vals := []any{[]any{"a", "b"}, []any{json.Number("1"), json.Number("2")}, []any{"a", nil},
			[]any{[]any{"s"}, []any{json.Number("1")}}, []any{map[string]any{"a": "x"}, map[string]any{}}}
		m.nn["enum"] = pick(m.rng, vals)
		return "enum added"
	}
	if len(e) > 1 && m.rng.IntN(2) == 0 {
		i := m.rng.IntN(len(e))
		m.nn["enum"] = slices.Delete(slices.Clone(e), i, i+1)
		return fmt.Sprintf("enum member %s removed", mustJSON(e[i]))
	}
	m.nn["enum"] = append(slices.Clone(e), "zz_new")
	return "enum member added"
}

// moveBehindRef moves the new node into the definitions and leaves a
// $ref in its place (a refactoring: no change of meaning).
func (m *mutator) moveBehindRef() string {
	defs := "$defs"
	if m.draft07 {
		defs = "definitions"
	}
	root := m.c.New.(map[string]any)
	d, ok := root[defs].(map[string]any)
	if !ok {
		d = map[string]any{}
		root[defs] = d
	}
	name := "m" + strconv.Itoa(len(d))
	d[name] = deepCopy(m.nn)
	clear(m.nn)
	m.nn["$ref"] = "#/" + defs + "/" + name
	return "moved behind $ref"
}

// wrap puts the new node in a composition: alone (no change of meaning)
// or beside a second branch.
func (m *mutator) wrap() string {
	kw := []string{"allOf", "anyOf", "oneOf"}[m.rng.IntN(3)]
	inner := deepCopy(m.nn)
	branches := []any{inner}
	if m.rng.IntN(2) == 0 {
		branches = append(branches, pick(m.rng, []any{map[string]any{"type": "string"}, map[string]any{"type": "integer", "minimum": json.Number("1")}, map[string]any{"type": "null"}}))
	}
	clear(m.nn)
	m.nn[kw] = branches
	return fmt.Sprintf("wrapped in %s of %d", kw, len(branches))
}

func pick(rng *rand.Rand, vals []any) any { return deepCopy(vals[rng.IntN(len(vals))]) }

// propertyNames lists a node's declared properties, sorted.
func propertyNames(s map[string]any) []string {
	p, _ := s["properties"].(map[string]any)
	return sortedNames(p)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func isDraft07(doc any) bool {
	m, _ := doc.(map[string]any)
	s, _ := m["$schema"].(string)
	return strings.Contains(s, "draft-07") || strings.Contains(s, "draft-06") || strings.Contains(s, "draft-04")
}

// schemaPointers lists the subschema locations of a document, in a fixed
// order.
func schemaPointers(node any, ptr []string) [][]string {
	s, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	out := [][]string{ptr}
	for _, k := range []string{"items", "additionalProperties", "contains", "not", "if", "then", "else", "propertyNames"} {
		out = append(out, schemaPointers(s[k], appendPtr(ptr, k))...)
	}
	for _, k := range []string{"properties", "patternProperties", "$defs", "definitions"} {
		if ps, ok := s[k].(map[string]any); ok {
			for _, n := range sortedNames(ps) {
				out = append(out, schemaPointers(ps[n], appendPtr(ptr, k, n))...)
			}
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"} {
		if a, ok := s[k].([]any); ok {
			for i, b := range a {
				out = append(out, schemaPointers(b, appendPtr(ptr, k, strconv.Itoa(i)))...)
			}
		}
	}
	return out
}

// nodeAt returns the value at ptr, nil when there is none.
func nodeAt(doc any, ptr []string) any {
	cur := doc
	for _, tok := range ptr {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			cur = x[i]
		default:
			return nil
		}
	}
	return cur
}
