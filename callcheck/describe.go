package callcheck

import (
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

func members(v *canon.Value) []canon.Member {
	if v == nil || v.Kind != canon.Object {
		return nil
	}
	return v.Members
}

func elems(v *canon.Value) []*canon.Value {
	if v == nil || v.Kind != canon.Array {
		return nil
	}
	out := make([]*canon.Value, len(v.Items))
	for i := range v.Items {
		out[i] = &v.Items[i]
	}
	return out
}

// jsonText renders a canon value as compact JSON (canonical form).
func jsonText(v *canon.Value) string { return string(canon.AppendJCS(nil, v)) }

func article(t string) string {
	switch {
	case t == "":
		return ""
	case strings.HasPrefix(t, "a") || strings.HasPrefix(t, "i") || strings.HasPrefix(t, "o"):
		return "an " + t
	}
	return "a " + t
}

// Describe says in a few words what the subschema s (of the schema root)
// accepts: "a string", "an integer from 1 to 100", `one of "a", "b"`,
// "an array of string", … ("" when it accepts anything).
func Describe(root, s *canon.Value) string {
	return describe(root, s, 0)
}

func describe(root, s *canon.Value, depth int) string {
	s = deref(root, s)
	if s == nil || s.Kind != canon.Object || depth > 4 {
		return ""
	}
	if d, ok := describeValues(s); ok {
		return d
	}
	types := declaredTypes(s)
	if len(types) == 0 {
		if d := describeAlternatives(root, s, depth); d != "" {
			return d
		}
		switch {
		case s.Has("properties") || s.Has("required"):
			types = []string{"object"}
		case s.Has("items") || s.Has("prefixItems"):
			types = []string{"array"}
		default:
			return ""
		}
	}
	if len(types) > 1 {
		var ds []string
		for _, t := range types {
			ds = append(ds, article(t))
		}
		return strings.Join(ds, " or ")
	}
	switch t := types[0]; t {
	case "string":
		return article(t) + describeString(s)
	case "integer", "number":
		return article(t) + describeNumber(s)
	case "array":
		return describeArray(root, s, depth)
	case "object":
		return article(t) + describeObject(s)
	default:
		return article(t)
	}
}

// describeValues describes const or enum (ok false without either).
func describeValues(s *canon.Value) (string, bool) {
	if c := s.Get("const"); c != nil {
		return "the value " + jsonText(c), true
	}
	e := s.Get("enum")
	if e == nil || e.Kind != canon.Array {
		return "", false
	}
	var vals []string
	for i, it := range e.Items {
		if i == 10 {
			vals = append(vals, "…")
			break
		}
		vals = append(vals, jsonText(&it))
	}
	if len(vals) == 1 {
		return "the value " + vals[0], true
	}
	return "one of " + strings.Join(vals, ", "), true
}

// declaredTypes returns the type names of s's "type".
func declaredTypes(s *canon.Value) []string {
	var types []string
	switch t := s.Get("type"); {
	case t == nil:
	case t.Kind == canon.String:
		types = []string{t.Str}
	case t.Kind == canon.Array:
		for _, it := range t.Items {
			if it.Kind == canon.String {
				types = append(types, it.Str)
			}
		}
	}
	return types
}

// describeAlternatives describes the branches of anyOf, else oneOf.
func describeAlternatives(root, s *canon.Value, depth int) string {
	for _, kw := range []string{"anyOf", "oneOf"} {
		var ds []string
		for _, alt := range elems(s.Get(kw)) {
			if d := describe(root, alt, depth+1); d != "" {
				ds = append(ds, d)
			}
		}
		if len(ds) > 0 {
			return strings.Join(ds, " or ")
		}
	}
	return ""
}

// describeString is " (format …, matching …, of N to M characters)", or "".
func describeString(s *canon.Value) string {
	var cs []string
	if f := s.Get("format"); f != nil && f.Kind == canon.String {
		cs = append(cs, "format "+f.Str)
	}
	if p := s.Get("pattern"); p != nil && p.Kind == canon.String {
		cs = append(cs, "matching "+p.Str)
	}
	minL, maxL := num(s, "minLength"), num(s, "maxLength")
	switch {
	case minL != "" && maxL != "":
		cs = append(cs, fmt.Sprintf("of %s to %s characters", minL, maxL))
	case minL != "":
		cs = append(cs, "of at least "+plural(minL, "character"))
	case maxL != "":
		cs = append(cs, "of at most "+plural(maxL, "character"))
	}
	if len(cs) == 0 {
		return ""
	}
	return " (" + strings.Join(cs, ", ") + ")"
}

// describeNumber is the bounds and multipleOf of a number.
func describeNumber(s *canon.Value) string {
	var d string
	lo, hi := num(s, "minimum"), num(s, "maximum")
	switch {
	case lo != "" && hi != "":
		d += " from " + lo + " to " + hi
	case lo != "":
		d += " ≥ " + lo
	case hi != "":
		d += " ≤ " + hi
	}
	if xlo := num(s, "exclusiveMinimum"); xlo != "" {
		d += " > " + xlo
	}
	if xhi := num(s, "exclusiveMaximum"); xhi != "" {
		d += " < " + xhi
	}
	if m := num(s, "multipleOf"); m != "" {
		d += ", a multiple of " + m
	}
	return d
}

// describeArray is "an array (of ITEMS)( with at least N items)".
func describeArray(root, s *canon.Value, depth int) string {
	d := article("array")
	if it := s.Get("items"); it != nil {
		if id := describe(root, it, depth+1); id != "" {
			d = "an array of " + strings.TrimPrefix(strings.TrimPrefix(id, "an "), "a ")
		}
	}
	if m := num(s, "minItems"); m != "" {
		d += " with at least " + plural(m, "item")
	}
	return d
}

// describeObject is " with required properties …", or "".
func describeObject(s *canon.Value) string {
	var req []string
	for _, r := range elems(s.Get("required")) {
		if r.Kind == canon.String {
			req = append(req, r.Str)
		}
	}
	if len(req) == 0 {
		return ""
	}
	return " with required properties " + strings.Join(req, ", ")
}

// plural returns "1 item", "2 items".
func plural(n, noun string) string {
	if n == "1" {
		return n + " " + noun
	}
	return n + " " + noun + "s"
}

func num(s *canon.Value, key string) string {
	if v := s.Get(key); v != nil && v.Kind == canon.Number {
		return v.Str
	}
	return ""
}
