package instance

import (
	"bytes"
	"math/big"
	"slices"

	"github.com/mcpctl/mcpctl/canon"
)

// Merge returns the conjunction of a and b as one schema, when it
// can be written exactly without allOf.
func Merge(a, b *canon.Value) (canon.Value, bool) {
	if b.Kind == canon.Bool {
		if b.Bool {
			return a.Clone(), true
		}
		return canon.BoolValue(false), true
	}
	if a.Kind == canon.Bool {
		if a.Bool {
			return b.Clone(), true
		}
		return canon.BoolValue(false), true
	}
	for _, k := range []string{"$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"} {
		if a.Has(k) || b.Has(k) {
			return canon.Value{}, false
		}
	}
	if !objectMergeable(a, b) || !objectMergeable(b, a) {
		return canon.Value{}, false
	}
	out := a.Clone()
	for _, m := range b.Members {
		bv := m.Value
		av := out.Get(m.Key)
		if av == nil {
			out.Set(m.Key, bv.Clone())
			continue
		}
		if AnnotationKeyword[m.Key] || bytes.Equal(canon.AppendSchema(nil, av), canon.AppendSchema(nil, &bv)) {
			continue
		}
		switch m.Key {
		case "type":
			t := DeclaredTypes(av) & DeclaredTypes(&bv)
			if t == 0 {
				return canon.BoolValue(false), true
			}
			tv, ok := t.TypeValue()
			if !ok {
				return canon.Value{}, false
			}
			out.Set("type", tv)
		case "enum":
			if av.Kind != canon.Array || bv.Kind != canon.Array {
				return canon.Value{}, false
			}
			keep := map[string]bool{}
			for i := range bv.Items {
				keep[string(canon.AppendJCS(nil, &bv.Items[i]))] = true
			}
			var items []canon.Value
			for i := range av.Items {
				if keep[string(canon.AppendJCS(nil, &av.Items[i]))] {
					items = append(items, av.Items[i])
				}
			}
			if len(items) == 0 {
				return canon.BoolValue(false), true
			}
			out.Set("enum", canon.ArrayValue(items...))
		case "required":
			if av.Kind != canon.Array || bv.Kind != canon.Array {
				return canon.Value{}, false
			}
			items := slices.Clone(av.Items)
			for _, it := range bv.Items {
				if !slices.ContainsFunc(items, func(x canon.Value) bool { return x.Kind == it.Kind && x.Str == it.Str }) {
					items = append(items, it)
				}
			}
			out.Set("required", canon.ArrayValue(items...))
		case "properties", "dependentSchemas":
			if av.Kind != canon.Object || bv.Kind != canon.Object {
				return canon.Value{}, false
			}
			pm := av.Clone()
			for _, p := range bv.Members {
				old := pm.Get(p.Key)
				if old == nil {
					pm.Set(p.Key, p.Value.Clone())
					continue
				}
				if mv, ok := Merge(old, &p.Value); ok {
					*old = mv
				} else {
					*old = canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(old.Clone(), p.Value.Clone())})
				}
			}
			out.Set(m.Key, pm)
		case "dependentRequired":
			if av.Kind != canon.Object || bv.Kind != canon.Object {
				return canon.Value{}, false
			}
			dm := av.Clone()
			for _, p := range bv.Members {
				old := dm.Get(p.Key)
				if old == nil || old.Kind != canon.Array || p.Value.Kind != canon.Array {
					if old != nil {
						return canon.Value{}, false
					}
					dm.Set(p.Key, p.Value.Clone())
					continue
				}
				for _, it := range p.Value.Items {
					if !slices.ContainsFunc(old.Items, func(x canon.Value) bool { return x.Str == it.Str }) {
						old.Items = append(old.Items, it)
					}
				}
			}
			out.Set(m.Key, dm)
		case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains":
			if !pickBound(&out, m.Key, av, &bv, 1) {
				return canon.Value{}, false
			}
		case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains":
			if !pickBound(&out, m.Key, av, &bv, -1) {
				return canon.Value{}, false
			}
		case "multipleOf":
			ra, oka := RatOf(av)
			rb, okb := RatOf(&bv)
			if !oka || !okb || ra.Sign() <= 0 || rb.Sign() <= 0 {
				return canon.Value{}, false
			}
			if IsMultiple(ra, rb) {
				continue
			}
			if IsMultiple(rb, ra) {
				out.Set("multipleOf", bv.Clone())
				continue
			}
			return canon.Value{}, false
		case "uniqueItems":
			if bv.Kind == canon.Bool && bv.Bool {
				out.Set("uniqueItems", bv.Clone())
			}
		case "items":
			if a.Has("prefixItems") || b.Has("prefixItems") {
				return canon.Value{}, false
			}
			mv, ok := Merge(av, &bv)
			if !ok {
				mv = canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(av.Clone(), bv.Clone())})
			}
			out.Set("items", mv)
		case "not":
			out.Set("not", canon.ObjectValue(canon.Member{Key: "anyOf", Value: canon.ArrayValue(av.Clone(), bv.Clone())}))
		case "allOf":
			if av.Kind != canon.Array || bv.Kind != canon.Array {
				return canon.Value{}, false
			}
			out.Set("allOf", canon.ArrayValue(append(slices.Clone(av.Items), bv.Items...)...))
		case "additionalProperties", "patternProperties", "propertyNames":
			// Only one side has it (objectMergeable), or both equal.
			return canon.Value{}, false
		default:
			if TypeKeywords[m.Key] == 0 && !KnownKeyword[m.Key] {
				continue // unknown keywords are annotations
			}
			return canon.Value{}, false
		}
	}
	return out, true
}

// KnownKeyword lists the validation keywords the engine reads beside the
// type-specific ones (TypeKeywords).
var KnownKeyword = map[string]bool{
	"type": true, "enum": true, "const": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true, "$ref": true, "$dynamicRef": true, "$recursiveRef": true,
}

// objectMergeable reports whether b's object keywords can join a's without
// changing what a's additionalProperties/patternProperties mean: when a
// closes or patterns its properties, b must declare no other property and
// no patterns of its own.
func objectMergeable(a, b *canon.Value) bool {
	if !a.Has("additionalProperties") && !a.Has("patternProperties") {
		return true
	}
	if b.Has("additionalProperties") || b.Has("patternProperties") {
		return false
	}
	bp := b.Get("properties")
	if bp == nil {
		return true
	}
	ap := a.Get("properties")
	for _, m := range bp.Members {
		if ap == nil || !ap.Has(m.Key) {
			return false
		}
	}
	return true
}

// pickBound keeps in out the tighter of two bounds for kw: sign 1 keeps the
// larger (lower bounds), -1 the smaller (upper bounds).
func pickBound(out *canon.Value, kw string, a, b *canon.Value, sign int) bool {
	ra, oka := RatOf(a)
	rb, okb := RatOf(b)
	if !oka || !okb {
		return false
	}
	if ra.Cmp(rb)*sign < 0 {
		out.Set(kw, b.Clone())
	}
	return true
}

// IsMultiple reports whether a is an integer multiple of b.
func IsMultiple(a, b *big.Rat) bool {
	if b.Sign() == 0 {
		return false
	}
	q := new(big.Rat).Quo(a, b)
	return q.IsInt()
}
