package callcheck

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// maxChoices is how many alternative examples Example tries (choosing the
// i-th branch of every anyOf/oneOf and the i-th member of every type array).
const maxChoices = 4

// Example builds valid arguments for the schema s (compiled as c), close to
// args: a minimal instance from the schema (each required property from its
// default, const, first enum member, first example, or the least value its
// type and constraints allow), then, one by one, every top-level argument
// of args that the schema documents, kept when the result still validates.
// Every candidate is checked with c; ok is false when none validates.
func Example(c *schema.Compiled, s *canon.Value, args any) (ex any, ok bool) {
	for choice := range maxChoices {
		g := gen{root: s, choice: choice}
		cand := g.value(s, 0)
		if c.Valid(cand) {
			ex, ok = cand, true
			break
		}
	}
	if !ok {
		return nil, false
	}
	base, isObj := ex.(map[string]any)
	given, argsObj := args.(map[string]any)
	if !isObj || !argsObj {
		return ex, true
	}
	props := deref(s, s).Get("properties")
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if props.Get(k) == nil {
			continue
		}
		cand := maps.Clone(base)
		cand[k] = given[k]
		if c.Valid(cand) {
			base = cand
		}
	}
	return base, true
}

type gen struct {
	root   *canon.Value
	choice int
}

func (g *gen) pick(n int) int { return min(g.choice, n-1) }

func (g *gen) value(s *canon.Value, depth int) any {
	s = deref(g.root, s)
	if s == nil || depth > 16 {
		return nil
	}
	if s.Kind == canon.Bool {
		return map[string]any{}
	}
	if s.Kind != canon.Object {
		return nil
	}
	for _, kw := range []string{"const", "default"} {
		if v := s.Get(kw); v != nil {
			return schema.Instance(v)
		}
	}
	for _, kw := range []string{"enum", "examples"} {
		if v := s.Get(kw); v != nil && v.Kind == canon.Array && len(v.Items) > 0 {
			return schema.Instance(&v.Items[g.pick(len(v.Items))])
		}
	}
	var types []string
	switch t := s.Get("type"); {
	case t == nil:
	case t.Kind == canon.String:
		types = []string{t.Str}
	case t.Kind == canon.Array:
		for _, it := range t.Items {
			if it.Kind == canon.String && it.Str != "null" {
				types = append(types, it.Str)
			}
		}
		if len(types) == 0 {
			types = []string{"null"}
		}
	}
	if len(types) == 0 {
		for _, kw := range []string{"anyOf", "oneOf"} {
			if alts := elems(s.Get(kw)); len(alts) > 0 {
				return g.value(alts[g.pick(len(alts))], depth+1)
			}
		}
		if all := elems(s.Get("allOf")); len(all) > 0 {
			out := map[string]any{}
			for _, a := range all {
				m, ok := g.value(a, depth+1).(map[string]any)
				if !ok {
					return g.value(a, depth+1)
				}
				maps.Copy(out, m)
			}
			if s.Has("properties") || s.Has("required") {
				maps.Copy(out, g.object(s, depth))
			}
			return out
		}
		switch {
		case s.Has("properties") || s.Has("required") || s.Has("additionalProperties"):
			types = []string{"object"}
		case s.Has("items") || s.Has("prefixItems"):
			types = []string{"array"}
		default:
			return map[string]any{}
		}
	}
	switch types[g.pick(len(types))] {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.array(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		return g.number(s, true)
	case "number":
		return g.number(s, false)
	case "boolean":
		return false
	}
	return nil
}

func (g *gen) object(s *canon.Value, depth int) map[string]any {
	out := map[string]any{}
	props := s.Get("properties")
	for _, r := range elems(s.Get("required")) {
		if r.Kind != canon.String {
			continue
		}
		ps := props.Get(r.Str)
		if ps == nil {
			if ap := s.Get("additionalProperties"); ap != nil && ap.Kind == canon.Object {
				ps = ap
			}
		}
		if ps == nil {
			out[r.Str] = "example"
			continue
		}
		out[r.Str] = g.value(ps, depth+1)
	}
	if m, err := strconv.Atoi(num(s, "minProperties")); err == nil {
		for _, p := range members(props) {
			if len(out) >= m {
				break
			}
			if _, ok := out[p.Key]; !ok {
				out[p.Key] = g.value(&p.Value, depth+1)
			}
		}
	}
	return out
}

func (g *gen) array(s *canon.Value, depth int) []any {
	out := []any{}
	n, _ := strconv.Atoi(num(s, "minItems"))
	prefix := elems(s.Get("prefixItems"))
	items := s.Get("items")
	if items != nil && items.Kind == canon.Array { // draft-07 tuple form
		prefix, items = elems(items), s.Get("additionalItems")
	}
	for i := 0; i < len(prefix) || i < n; i++ {
		switch {
		case i < len(prefix):
			out = append(out, g.value(prefix[i], depth+1))
		case items != nil:
			out = append(out, g.value(items, depth+1))
		default:
			out = append(out, "example")
		}
	}
	if len(out) > 1 && s.Get("uniqueItems") != nil {
		for i, v := range out {
			if str, ok := v.(string); ok {
				out[i] = str + strconv.Itoa(i+1)
			}
		}
	}
	return out
}

var formatExamples = map[string]string{
	"date-time":     "2025-01-31T12:00:00Z",
	"date":          "2025-01-31",
	"time":          "12:00:00Z",
	"duration":      "P1D",
	"email":         "user@example.com",
	"idn-email":     "user@example.com",
	"hostname":      "example.com",
	"idn-hostname":  "example.com",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"uri":           "https://example.com/",
	"uri-reference": "https://example.com/",
	"iri":           "https://example.com/",
	"iri-reference": "https://example.com/",
	"url":           "https://example.com/",
	"uuid":          "123e4567-e89b-12d3-a456-426614174000",
	"json-pointer":  "/example",
	"regex":         ".*",
}

func (g *gen) str(s *canon.Value) string {
	out := "example"
	if f := s.Get("format"); f != nil && f.Kind == canon.String {
		if e, ok := formatExamples[f.Str]; ok {
			return e
		}
	}
	if n, err := strconv.Atoi(num(s, "minLength")); err == nil && len(out) < n {
		out += strings.Repeat("x", n-len(out))
	}
	if n, err := strconv.Atoi(num(s, "maxLength")); err == nil && n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// number returns the value closest to 1 inside the schema's bounds (for
// integers an integer), a multiple of multipleOf when given.
func (g *gen) number(s *canon.Value, integer bool) json.Number {
	lo, hi := math.Inf(-1), math.Inf(1)
	if v, err := strconv.ParseFloat(num(s, "minimum"), 64); err == nil {
		lo = v
	}
	if v, err := strconv.ParseFloat(num(s, "maximum"), 64); err == nil {
		hi = v
	}
	step := 0.0
	if v, err := strconv.ParseFloat(num(s, "multipleOf"), 64); err == nil && v > 0 {
		step = v
	}
	if integer && step == 0 {
		step = 1
	}
	if v, err := strconv.ParseFloat(num(s, "exclusiveMinimum"), 64); err == nil {
		lo = math.Max(lo, v+math.Max(step, 1e-9)/2)
	}
	if v, err := strconv.ParseFloat(num(s, "exclusiveMaximum"), 64); err == nil {
		hi = math.Min(hi, v-math.Max(step, 1e-9)/2)
	}
	x := math.Min(math.Max(1, lo), hi)
	if step > 0 {
		x = math.Ceil(x/step) * step
		if x > hi {
			x = math.Floor(hi/step) * step
		}
	}
	if integer || x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
}
