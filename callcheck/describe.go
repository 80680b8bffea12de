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
	if c := s.Get("const"); c != nil {
		return "the value " + jsonText(c)
	}
	if e := s.Get("enum"); e != nil && e.Kind == canon.Array {
		var vals []string
		for i, it := range e.Items {
			if i == 10 {
				vals = append(vals, "…")
				break
			}
			vals = append(vals, jsonText(&it))
		}
		if len(vals) == 1 {
			return "the value " + vals[0]
		}
		return "one of " + strings.Join(vals, ", ")
	}
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
	if len(types) == 0 {
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
		if s.Has("properties") || s.Has("required") {
			types = []string{"object"}
		} else if s.Has("items") || s.Has("prefixItems") {
			types = []string{"array"}
		} else {
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
	t := types[0]
	d := article(t)
	switch t {
	case "string":
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
		if len(cs) > 0 {
			d += " (" + strings.Join(cs, ", ") + ")"
		}
	case "integer", "number":
		lo, hi := num(s, "minimum"), num(s, "maximum")
		xlo, xhi := num(s, "exclusiveMinimum"), num(s, "exclusiveMaximum")
		switch {
		case lo != "" && hi != "":
			d += " from " + lo + " to " + hi
		case lo != "":
			d += " ≥ " + lo
		case hi != "":
			d += " ≤ " + hi
		}
		if xlo != "" {
			d += " > " + xlo
		}
		if xhi != "" {
			d += " < " + xhi
		}
		if m := num(s, "multipleOf"); m != "" {
			d += ", a multiple of " + m
		}
	case "array":
		if it := s.Get("items"); it != nil {
			if id := describe(root, it, depth+1); id != "" {
				d = "an array of " + strings.TrimPrefix(strings.TrimPrefix(id, "an "), "a ")
			}
		}
		if m := num(s, "minItems"); m != "" {
			d += " with at least " + plural(m, "item")
		}
	case "object":
		var req []string
		for _, r := range elems(s.Get("required")) {
			if r.Kind == canon.String {
				req = append(req, r.Str)
			}
		}
		if len(req) > 0 {
			d += " with required properties " + strings.Join(req, ", ")
		}
	}
	return d
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
