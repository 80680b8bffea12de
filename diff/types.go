package diff

import (
	"math/big"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// types is a set of JSON Schema instance types. "number" is split into
// integers and non-integer numbers, so that integer ⊂ number (docs/diff.md#normalization)
// is plain set inclusion.
type types uint8

const (
	tNull types = 1 << iota
	tBool
	tObject
	tArray
	tString
	tInteger
	tFraction

	tNumber = tInteger | tFraction
	tAll    = tNull | tBool | tObject | tArray | tString | tNumber
)

// typeBits returns the set named by a JSON Schema type name.
func typeBits(name string) types {
	switch name {
	case "null":
		return tNull
	case "boolean":
		return tBool
	case "object":
		return tObject
	case "array":
		return tArray
	case "string":
		return tString
	case "integer":
		return tInteger
	case "number":
		return tNumber
	}
	return 0
}

// names lists the types of t by their JSON Schema names, in a fixed order
// ("number" when both integers and fractions are in, "integer" for
// integers only, "non-integer number" for fractions only).
func (t types) names() []string {
	var out []string
	for _, e := range []struct {
		t    types
		name string
	}{{tArray, "array"}, {tBool, "boolean"}, {tNull, "null"}, {tObject, "object"}, {tString, "string"}} {
		if t&e.t != 0 {
			out = append(out, e.name)
		}
	}
	switch t & tNumber {
	case tNumber:
		out = append(out, "number")
	case tInteger:
		out = append(out, "integer")
	case tFraction:
		out = append(out, "non-integer number")
	}
	return out
}

func (t types) String() string {
	if t == tAll {
		return "any type"
	}
	if t == 0 {
		return "nothing"
	}
	return strings.Join(t.names(), ", ")
}

// typeValue renders t as the value of a "type" keyword (string or array);
// ok is false when t cannot be written as one (fractions only, or all).
func (t types) typeValue() (canon.Value, bool) {
	if t&tNumber == tFraction || t == 0 {
		return canon.Value{}, false
	}
	names := t.names()
	if len(names) == 1 {
		return canon.StringValue(names[0]), true
	}
	items := make([]canon.Value, len(names))
	for i, n := range names {
		items[i] = canon.StringValue(n)
	}
	return canon.ArrayValue(items...), true
}

// declaredTypes returns the set allowed by a "type" keyword value; all
// types when absent or unreadable.
func declaredTypes(tv *canon.Value) types {
	if tv == nil {
		return tAll
	}
	switch tv.Kind {
	case canon.String:
		return typeBits(tv.Str)
	case canon.Array:
		var t types
		for i := range tv.Items {
			if tv.Items[i].Kind == canon.String {
				t |= typeBits(tv.Items[i].Str)
			}
		}
		return t
	}
	return tAll
}

// kindOf returns the type of an instance value.
func kindOf(v *canon.Value) types {
	switch v.Kind {
	case canon.Null:
		return tNull
	case canon.Bool:
		return tBool
	case canon.Object:
		return tObject
	case canon.Array:
		return tArray
	case canon.String:
		return tString
	case canon.Number:
		if r, ok := ratOf(v); ok && r.IsInt() {
			return tInteger
		}
		return tFraction
	}
	return 0
}

// typesOf returns the effective type set of a (resolved, normalized)
// schema: its declared types, narrowed to the kinds of its enum members
// when it has an enum. Composition keywords are not looked into.
func typesOf(s *canon.Value) types {
	if s == nil {
		return tAll
	}
	switch s.Kind {
	case canon.Bool:
		if s.Bool {
			return tAll
		}
		return 0
	case canon.Object:
	default:
		return tAll
	}
	t := declaredTypes(s.Get("type"))
	// An instance matches one anyOf/oneOf branch and every allOf branch.
	for _, kw := range []string{"anyOf", "oneOf"} {
		if a := s.Get(kw); a != nil && a.Kind == canon.Array {
			var hull types
			for i := range a.Items {
				hull |= typesOf(&a.Items[i])
			}
			t &= hull
		}
	}
	if a := s.Get("allOf"); a != nil && a.Kind == canon.Array {
		for i := range a.Items {
			t &= typesOf(&a.Items[i])
		}
	}
	if e := s.Get("enum"); e != nil && e.Kind == canon.Array {
		var et types
		for i := range e.Items {
			et |= kindOf(&e.Items[i])
		}
		t &= et
	}
	return t
}

// ratOf parses a JSON number exactly.
func ratOf(v *canon.Value) (*big.Rat, bool) {
	if v == nil || v.Kind != canon.Number {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(v.Str)
	return r, ok
}

// intOf reads a non-negative integer keyword value (minLength, …), clamped
// to 1<<40; ok is false when absent or not a number.
func intOf(v *canon.Value) (int64, bool) {
	r, ok := ratOf(v)
	if !ok || r.Sign() < 0 {
		return 0, false
	}
	if r.Cmp(big.NewRat(1<<40, 1)) > 0 {
		return 1 << 40, true
	}
	f := new(big.Int).Quo(r.Num(), r.Denom())
	return f.Int64(), true
}
