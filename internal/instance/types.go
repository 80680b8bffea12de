package instance

import (
	"math/big"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// Types is a set of JSON Schema instance Types. "number" is split into
// integers and non-integer numbers, so that integer ⊂ number (docs/diff.md#normalization)
// is plain set inclusion.
type Types uint8

const (
	Null Types = 1 << iota
	Bool
	Object
	Array
	String
	Integer
	Fraction

	Number = Integer | Fraction
	All    = Null | Bool | Object | Array | String | Number
)

// TypeBits returns the set named by a JSON Schema type name.
func TypeBits(name string) Types {
	switch name {
	case "null":
		return Null
	case "boolean":
		return Bool
	case "object":
		return Object
	case "array":
		return Array
	case "string":
		return String
	case "integer":
		return Integer
	case "number":
		return Number
	}
	return 0
}

// Names lists the Types of t by their JSON Schema Names, in a fixed order
// ("number" when both integers and fractions are in, "integer" for
// integers only, "non-integer number" for fractions only).
func (t Types) Names() []string {
	var out []string
	for _, e := range []struct {
		t    Types
		name string
	}{{Array, "array"}, {Bool, "boolean"}, {Null, "null"}, {Object, "object"}, {String, "string"}} {
		if t&e.t != 0 {
			out = append(out, e.name)
		}
	}
	switch t & Number {
	case Number:
		out = append(out, "number")
	case Integer:
		out = append(out, "integer")
	case Fraction:
		out = append(out, "non-integer number")
	}
	return out
}

func (t Types) String() string {
	if t == All {
		return "any type"
	}
	if t == 0 {
		return "nothing"
	}
	return strings.Join(t.Names(), ", ")
}

// TypeValue renders t as the value of a "type" keyword (string or array);
// ok is false when t cannot be written as one (fractions only, or all).
func (t Types) TypeValue() (canon.Value, bool) {
	if t&Number == Fraction || t == 0 {
		return canon.Value{}, false
	}
	Names := t.Names()
	if len(Names) == 1 {
		return canon.StringValue(Names[0]), true
	}
	items := make([]canon.Value, len(Names))
	for i, n := range Names {
		items[i] = canon.StringValue(n)
	}
	return canon.ArrayValue(items...), true
}

// DeclaredTypes returns the set allowed by a "type" keyword value; all
// Types when absent or unreadable.
func DeclaredTypes(tv *canon.Value) Types {
	if tv == nil {
		return All
	}
	switch tv.Kind {
	case canon.String:
		return TypeBits(tv.Str)
	case canon.Array:
		var t Types
		for i := range tv.Items {
			if tv.Items[i].Kind == canon.String {
				t |= TypeBits(tv.Items[i].Str)
			}
		}
		return t
	}
	return All
}

// KindOf returns the type of an instance value.
func KindOf(v *canon.Value) Types {
	switch v.Kind {
	case canon.Null:
		return Null
	case canon.Bool:
		return Bool
	case canon.Object:
		return Object
	case canon.Array:
		return Array
	case canon.String:
		return String
	case canon.Number:
		if r, ok := RatOf(v); ok && r.IsInt() {
			return Integer
		}
		return Fraction
	}
	return 0
}

// TypesOf returns the effective type set of a (resolved, normalized)
// schema: its declared Types, narrowed to the kinds of its enum members
// when it has an enum. Composition keywords are not looked into.
func TypesOf(s *canon.Value) Types {
	if s == nil {
		return All
	}
	switch s.Kind {
	case canon.Bool:
		if s.Bool {
			return All
		}
		return 0
	case canon.Object:
	default:
		return All
	}
	t := DeclaredTypes(s.Get("type"))
	// An instance matches one anyOf/oneOf branch and every allOf branch.
	for _, kw := range []string{"anyOf", "oneOf"} {
		if a := s.Get(kw); a != nil && a.Kind == canon.Array {
			var hull Types
			for i := range a.Items {
				hull |= TypesOf(&a.Items[i])
			}
			t &= hull
		}
	}
	if a := s.Get("allOf"); a != nil && a.Kind == canon.Array {
		for i := range a.Items {
			t &= TypesOf(&a.Items[i])
		}
	}
	if e := s.Get("enum"); e != nil && e.Kind == canon.Array {
		var et Types
		for i := range e.Items {
			et |= KindOf(&e.Items[i])
		}
		t &= et
	}
	return t
}

// RatOf parses a JSON number exactly.
func RatOf(v *canon.Value) (*big.Rat, bool) {
	if v == nil || v.Kind != canon.Number {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(v.Str)
	return r, ok
}

// IntOf reads a non-negative integer keyword value (minLength, …), clamped
// to 1<<40; ok is false when absent or not a number.
func IntOf(v *canon.Value) (int64, bool) {
	r, ok := RatOf(v)
	if !ok || r.Sign() < 0 {
		return 0, false
	}
	if r.Cmp(big.NewRat(1<<40, 1)) > 0 {
		return 1 << 40, true
	}
	f := new(big.Int).Quo(r.Num(), r.Denom())
	return f.Int64(), true
}
