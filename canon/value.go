package canon

import (
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds, in the order RFC 8259 §3 lists the value types.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

// String returns the JSON Schema name of the kind ("null", "boolean",
// "number", "string", "array", "object").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is one node of an ordered JSON tree, as read by Parse.
//
// Object members keep their source order (Go maps would lose it), numbers keep
// their source text, and every node remembers the byte range it came from, so
// callers can slice the exact source bytes of any subtree (Raw) and report
// errors by byte offset.
type Value struct {
	Kind Kind
	// Bool holds a Bool value.
	Bool bool
	// Str holds a String value (decoded) or a Number's source text.
	Str string
	// Items holds an Array's elements in order.
	Items []Value
	// Members holds an Object's members in source order.
	Members []Member
	// Start and End are the byte offsets [Start, End) of the value in the
	// source passed to Parse; both are 0 for values built in code.
	Start, End int
}

// Member is one "key": value pair of an Object.
type Member struct {
	Key string
	// KeyStart is the byte offset of the key's opening quote.
	KeyStart int
	Value    Value
}

// Get returns the value of the member named key, or nil when v is not an
// object or has no such member.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i].Value
		}
	}
	return nil
}

// Has reports whether v is an object with a member named key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Delete removes the member named key from the object v, if present, and
// reports whether it did.
func (v *Value) Delete(key string) bool {
	if v == nil || v.Kind != Object {
		return false
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
			return true
		}
	}
	return false
}

// Set replaces the value of the member named key, or appends a new member.
// v must be an object.
func (v *Value) Set(key string, val Value) {
	for i := range v.Members {
		if v.Members[i].Key == key {
			v.Members[i].Value = val
			return
		}
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
}

// Clone returns a deep copy of v that shares no slices with it.
func (v Value) Clone() Value {
	c := v
	if v.Items != nil {
		c.Items = make([]Value, len(v.Items))
		for i := range v.Items {
			c.Items[i] = v.Items[i].Clone()
		}
	}
	if v.Members != nil {
		c.Members = make([]Member, len(v.Members))
		for i := range v.Members {
			c.Members[i] = Member{Key: v.Members[i].Key, KeyStart: v.Members[i].KeyStart, Value: v.Members[i].Value.Clone()}
		}
	}
	return c
}

// StringValue returns a String Value holding s.
func StringValue(s string) Value { return Value{Kind: String, Str: s} }

// BoolValue returns a Bool Value.
func BoolValue(b bool) Value { return Value{Kind: Bool, Bool: b} }

// NumberValue returns a Number Value with the given JSON number text.
func NumberValue(text string) Value { return Value{Kind: Number, Str: text} }

// NullValue returns the JSON null.
func NullValue() Value { return Value{Kind: Null} }

// ArrayValue returns an Array Value holding items.
func ArrayValue(items ...Value) Value { return Value{Kind: Array, Items: items} }

// ObjectValue returns an Object Value with the given members.
func ObjectValue(members ...Member) Value { return Value{Kind: Object, Members: members} }

// Nearest walks the RFC 6901 JSON Pointer ptr from v and returns the value
// it names or, when it names nothing, the deepest value on its way (v itself
// for "" or a first token that does not resolve). Array indexes are decimal
// without leading zeros.
func (v *Value) Nearest(ptr string) *Value {
	cur := v
	if !strings.HasPrefix(ptr, "/") {
		return cur
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		next := cur.Get(tok)
		if i, err := strconv.Atoi(tok); cur.Kind == Array && err == nil && i >= 0 && i < len(cur.Items) && (tok == "0" || tok[0] != '0') {
			next = &cur.Items[i]
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}
