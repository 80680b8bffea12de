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
	if v, done := mergeBool(a, b); done {
		return v, true
	}
	if !mergeable(a, b) {
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
		switch mergeKeyword(&out, m.Key, av, &bv, a, b) {
		case mergeFalse:
			return canon.BoolValue(false), true
		case mergeInexact:
			return canon.Value{}, false
		}
	}
	return out, true
}

// mergeBool merges when a or b is a boolean schema (done true).
func mergeBool(a, b *canon.Value) (canon.Value, bool) {
	for _, pair := range [][2]*canon.Value{{b, a}, {a, b}} {
		if x, other := pair[0], pair[1]; x.Kind == canon.Bool {
			if x.Bool {
				return other.Clone(), true
			}
			return canon.BoolValue(false), true
		}
	}
	return canon.Value{}, false
}

// mergeable reports whether neither schema has a keyword Merge cannot
// carry (identifiers, dynamic references, unevaluated*) and their object
// keywords can join.
func mergeable(a, b *canon.Value) bool {
	for _, k := range []string{"$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"} {
		if a.Has(k) || b.Has(k) {
			return false
		}
	}
	return objectMergeable(a, b) && objectMergeable(b, a)
}

// mergeOutcome is what merging one keyword found.
type mergeOutcome int

const (
	merged       mergeOutcome = iota // out holds the conjunction of the keyword
	mergeFalse                       // nothing satisfies both schemas
	mergeInexact                     // the conjunction cannot be written exactly
)

// mergeKeyword merges b's value bv of key into out, whose value is av (a
// and b are the whole schemas).
func mergeKeyword(out *canon.Value, key string, av, bv, a, b *canon.Value) mergeOutcome {
	switch key {
	case "type":
		return mergeType(out, av, bv)
	case "enum":
		return mergeEnum(out, av, bv)
	case "required":
		return mergeRequired(out, av, bv)
	case "properties", "dependentSchemas":
		return mergeSchemaMap(out, key, av, bv)
	case "dependentRequired":
		return mergeDependentRequired(out, av, bv)
	case "minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains":
		return exactIf(pickBound(out, key, av, bv, 1))
	case "maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains":
		return exactIf(pickBound(out, key, av, bv, -1))
	case "multipleOf":
		return mergeMultipleOf(out, av, bv)
	case "uniqueItems":
		if bv.Kind == canon.Bool && bv.Bool {
			out.Set("uniqueItems", bv.Clone())
		}
		return merged
	case "items":
		if a.Has("prefixItems") || b.Has("prefixItems") {
			return mergeInexact
		}
		out.Set("items", mergeOrAllOf(av, bv))
		return merged
	case "not":
		out.Set("not", canon.ObjectValue(canon.Member{Key: "anyOf", Value: canon.ArrayValue(av.Clone(), bv.Clone())}))
		return merged
	case "allOf":
		if av.Kind != canon.Array || bv.Kind != canon.Array {
			return mergeInexact
		}
		out.Set("allOf", canon.ArrayValue(append(slices.Clone(av.Items), bv.Items...)...))
		return merged
	case "additionalProperties", "patternProperties", "propertyNames":
		// Only one side has it (objectMergeable), or both equal.
		return mergeInexact
	}
	if TypeKeywords[key] == 0 && !KnownKeyword[key] {
		return merged // unknown keywords are annotations
	}
	return mergeInexact
}

func exactIf(ok bool) mergeOutcome {
	if ok {
		return merged
	}
	return mergeInexact
}

// mergeOrAllOf is Merge(a, b), or {"allOf": [a, b]} when not exact.
func mergeOrAllOf(a, b *canon.Value) canon.Value {
	if mv, ok := Merge(a, b); ok {
		return mv
	}
	return canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(a.Clone(), b.Clone())})
}

func mergeType(out, av, bv *canon.Value) mergeOutcome {
	t := DeclaredTypes(av) & DeclaredTypes(bv)
	if t == 0 {
		return mergeFalse
	}
	tv, ok := t.TypeValue()
	if !ok {
		return mergeInexact
	}
	out.Set("type", tv)
	return merged
}

// mergeEnum keeps the members of av that bv lists too.
func mergeEnum(out, av, bv *canon.Value) mergeOutcome {
	if av.Kind != canon.Array || bv.Kind != canon.Array {
		return mergeInexact
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
		return mergeFalse
	}
	out.Set("enum", canon.ArrayValue(items...))
	return merged
}

// mergeRequired is the union of both lists, av's order first.
func mergeRequired(out, av, bv *canon.Value) mergeOutcome {
	if av.Kind != canon.Array || bv.Kind != canon.Array {
		return mergeInexact
	}
	items := slices.Clone(av.Items)
	for _, it := range bv.Items {
		if !slices.ContainsFunc(items, func(x canon.Value) bool { return x.Kind == it.Kind && x.Str == it.Str }) {
			items = append(items, it)
		}
	}
	out.Set("required", canon.ArrayValue(items...))
	return merged
}

// mergeSchemaMap merges properties or dependentSchemas name by name.
func mergeSchemaMap(out *canon.Value, key string, av, bv *canon.Value) mergeOutcome {
	if av.Kind != canon.Object || bv.Kind != canon.Object {
		return mergeInexact
	}
	pm := av.Clone()
	for _, p := range bv.Members {
		if old := pm.Get(p.Key); old != nil {
			*old = mergeOrAllOf(old, &p.Value)
		} else {
			pm.Set(p.Key, p.Value.Clone())
		}
	}
	out.Set(key, pm)
	return merged
}

// mergeDependentRequired joins the lists of each property.
func mergeDependentRequired(out, av, bv *canon.Value) mergeOutcome {
	if av.Kind != canon.Object || bv.Kind != canon.Object {
		return mergeInexact
	}
	dm := av.Clone()
	for _, p := range bv.Members {
		old := dm.Get(p.Key)
		if old == nil || old.Kind != canon.Array || p.Value.Kind != canon.Array {
			if old != nil {
				return mergeInexact
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
	out.Set("dependentRequired", dm)
	return merged
}

// mergeMultipleOf keeps the multipleOf that is a multiple of the other.
func mergeMultipleOf(out, av, bv *canon.Value) mergeOutcome {
	ra, oka := RatOf(av)
	rb, okb := RatOf(bv)
	switch {
	case !oka || !okb || ra.Sign() <= 0 || rb.Sign() <= 0:
		return mergeInexact
	case IsMultiple(ra, rb):
		return merged
	case IsMultiple(rb, ra):
		out.Set("multipleOf", bv.Clone())
		return merged
	}
	return mergeInexact
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
