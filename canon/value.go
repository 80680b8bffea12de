package canon

import ()

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

	// index maps member names to positions in Members for objects with at
	// least indexMin members (see IndexMembers); nil otherwise. It is
	// never modified once built, so copies of a Value may share it.
	index map[string]int
}

// indexMin is the member count from which an object keeps a name index:
// below it a scan is as fast as a map lookup.
const indexMin = 16

// Member is one "key": value pair of an Object.
type Member struct {
	Key string
	// KeyStart is the byte offset of the key's opening quote.
	KeyStart int
	Value    Value
}

// Get returns the value of the member named key, or nil when v is not an
// object or has no such member.
//
// Lookups in objects read by Parse or indexed with IndexMembers take
// constant time; others scan the members.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	if i := v.position(key); i >= 0 {
		return &v.Members[i].Value
	}
	return nil
}

// position returns the index in Members of the member named key, -1 when
// there is none. The name index is trusted only while it still describes
// Members (same length, the named member where it says); otherwise the
// members are scanned.
func (v *Value) position(key string) int {
	if ix := v.index; ix != nil && len(ix) == len(v.Members) {
		i, ok := ix[key]
		if !ok {
			return -1
		}
		if v.Members[i].Key == key {
			return i
		}
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// IndexMembers rebuilds the name index of the object v, which makes Get
// take constant time on objects with many members. Parse indexes the
// objects it reads; code that builds a large object member by member, or
// renames members in place, calls it when done. Appending members or
// reordering them only makes Get fall back to a scan; renaming a member in
// place without reindexing would make Get miss it.
func (v *Value) IndexMembers() {
	v.index = nil
	if v.Kind != Object || len(v.Members) < indexMin {
		return
	}
	ix := make(map[string]int, len(v.Members))
	for i := range v.Members {
		ix[v.Members[i].Key] = i
	}
	v.index = ix
}

// Has reports whether v is an object with a member named key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Delete removes the member named key from the object v, if present, and
// reports whether it did.
func (v *Value) Delete(key string) bool {
	if v == nil || v.Kind != Object {
		return false
	}
	i := v.position(key)
	if i < 0 {
		return false
	}
	v.Members = append(v.Members[:i:i], v.Members[i+1:]...)
	v.index = nil
	return true
}

// Set replaces the value of the member named key, or appends a new member.
// v must be an object. Adding a member drops the name index (see
// IndexMembers).
func (v *Value) Set(key string, val Value) {
	if i := v.position(key); i >= 0 {
		v.Members[i].Value = val
		return
	}
	v.Members = append(v.Members, Member{Key: key, Value: val})
	v.index = nil
}

// Clone returns a deep copy of v that shares no slices with it (only the
// read-only name index).
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
func ObjectValue(members ...Member) Value {
	v := Value{Kind: Object, Members: members}
	v.IndexMembers()
	return v
}
