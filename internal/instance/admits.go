package instance

import (
	"bytes"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// This file holds cheap local checks of a value against the keywords of one
// subschema (no composition, no subschemas): used to filter enum members and
// witness samples before the real validator is asked.

// Admits reports whether v passes the local keywords of schema s: type,
// enum, numeric bounds, multipleOf, string lengths and pattern, array and
// object counts, required. It answers true when unsure; the validator
// decides.
func Admits(s *canon.Value, v *canon.Value) bool {
	switch {
	case s == nil:
		return true
	case s.Kind == canon.Bool:
		return s.Bool
	case s.Kind != canon.Object:
		return true
	case DeclaredTypes(s.Get("type"))&KindOf(v) == 0 || !inEnum(s, v):
		return false
	}
	switch v.Kind {
	case canon.Number:
		return admitsNumber(s, v)
	case canon.String:
		return admitsString(s, v)
	case canon.Array:
		return withinCount(s, "minItems", "maxItems", len(v.Items))
	case canon.Object:
		return withinCount(s, "minProperties", "maxProperties", len(v.Members)) && hasRequired(s, v)
	}
	return true
}

// inEnum reports whether v is a member of s's enum (true without one).
func inEnum(s, v *canon.Value) bool {
	e := s.Get("enum")
	if e == nil || e.Kind != canon.Array {
		return true
	}
	key := string(canon.AppendJCS(nil, v))
	for i := range e.Items {
		if string(canon.AppendJCS(nil, &e.Items[i])) == key {
			return true
		}
	}
	return false
}

// admitsNumber checks the bounds and multipleOf (true for a number it
// cannot read exactly).
func admitsNumber(s, v *canon.Value) bool {
	r, ok := RatOf(v)
	if !ok {
		return true
	}
	lo, hi := LowerBound(s, false), UpperBound(s, false)
	if lo.Set && (r.Cmp(lo.V) < 0 || (lo.Excl && r.Cmp(lo.V) == 0)) {
		return false
	}
	if hi.Set && (r.Cmp(hi.V) > 0 || (hi.Excl && r.Cmp(hi.V) == 0)) {
		return false
	}
	m, ok := RatOf(s.Get("multipleOf"))
	return !ok || m.Sign() <= 0 || IsMultiple(r, m)
}

// admitsString checks the length bounds (in code points) and pattern.
func admitsString(s, v *canon.Value) bool {
	if !withinCount(s, "minLength", "maxLength", utf8.RuneCountInString(v.Str)) {
		return false
	}
	if p := s.Get("pattern"); p != nil && p.Kind == canon.String {
		if re := CompileRegexp(p.Str); re != nil && !re.MatchString(v.Str) {
			return false
		}
	}
	return true
}

// withinCount reports whether n is within s's minKW and maxKW.
func withinCount(s *canon.Value, minKW, maxKW string, n int) bool {
	if m, ok := IntOf(s.Get(minKW)); ok && int64(n) < m {
		return false
	}
	if m, ok := IntOf(s.Get(maxKW)); ok && int64(n) > m {
		return false
	}
	return true
}

// hasRequired reports whether object v has every property s requires.
func hasRequired(s, v *canon.Value) bool {
	r := s.Get("required")
	if r == nil || r.Kind != canon.Array {
		return true
	}
	for _, it := range r.Items {
		if it.Kind == canon.String && !v.Has(it.Str) {
			return false
		}
	}
	return true
}

// localKeywords are the keywords Admits checks exactly (plus annotations):
// a schema with any other keyword beside an enum needs the validator to
// tell which members it accepts.
var localKeywords = map[string]bool{
	"type": true, "enum": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "minLength": true, "maxLength": true,
	"pattern": true, "minItems": true, "maxItems": true, "minProperties": true,
	"maxProperties": true, "required": true, "format": true,
}

// AdmitsMember reports whether the subschema s accepts value v, keywords
// on subschemas (items, properties, contains, propertyNames, …) included:
// Admits, then the validator on s alone when s has keywords Admits does not
// read. A subschema holding a $ref (recursive, not inlined) or one that does
// not compile on its own is answered by Admits alone.
func AdmitsMember(s, v *canon.Value) bool {
	if !Admits(s, v) {
		return false
	}
	if s == nil || s.Kind != canon.Object || !hasNonLocalKeyword(s) {
		return true
	}
	b := canon.AppendJCS(nil, s)
	if bytes.Contains(b, []byte(`"$ref"`)) || bytes.Contains(b, []byte(`"$dynamicRef"`)) {
		return true
	}
	c, err := schema.Compile(s)
	if err != nil {
		return true
	}
	return c.Valid(schema.Instance(v))
}

func hasNonLocalKeyword(s *canon.Value) bool {
	for _, m := range s.Members {
		if !localKeywords[m.Key] && (KnownKeyword[m.Key] || TypeKeywords[m.Key] != 0) {
			return true
		}
	}
	return false
}

// Bound is a numeric bound: value, exclusive or not; Set false = none.
type Bound struct {
	V    *big.Rat
	Excl bool
	Set  bool
	KW   string       // the keyword that sets it
	Src  *canon.Value // its value
}

// LowerBound returns the tighter of minimum and exclusiveMinimum. With
// intOnly (only integers are allowed) an exclusive bound becomes the
// inclusive integer bound it means (exclusiveMinimum 0 is minimum 1).
func LowerBound(s *canon.Value, intOnly bool) Bound {
	var b Bound
	if r, ok := RatOf(s.Get("minimum")); ok {
		b = Bound{V: r, Set: true, KW: "minimum", Src: s.Get("minimum")}
	}
	if r, ok := RatOf(s.Get("exclusiveMinimum")); ok {
		if !b.Set || r.Cmp(b.V) >= 0 {
			b = Bound{V: r, Excl: true, Set: true, KW: "exclusiveMinimum", Src: s.Get("exclusiveMinimum")}
		}
	}
	if intOnly && b.Set {
		f := FloorRat(b.V)
		if b.Excl || !b.V.IsInt() {
			f.Add(f, big.NewRat(1, 1))
		}
		b.V, b.Excl = f, false
	}
	return b
}

// UpperBound is LowerBound for maximum and exclusiveMaximum.
func UpperBound(s *canon.Value, intOnly bool) Bound {
	var b Bound
	if r, ok := RatOf(s.Get("maximum")); ok {
		b = Bound{V: r, Set: true, KW: "maximum", Src: s.Get("maximum")}
	}
	if r, ok := RatOf(s.Get("exclusiveMaximum")); ok {
		if !b.Set || r.Cmp(b.V) <= 0 {
			b = Bound{V: r, Excl: true, Set: true, KW: "exclusiveMaximum", Src: s.Get("exclusiveMaximum")}
		}
	}
	if intOnly && b.Set {
		f := FloorRat(b.V)
		if b.Excl && b.V.IsInt() {
			f.Sub(f, big.NewRat(1, 1))
		}
		b.V, b.Excl = f, false
	}
	return b
}

// TighterLower compares lower bounds: 1 when b excludes more than a, -1
// when less, 0 when equal.
func TighterLower(a, b Bound) int { return tighter(a, b, false) }

// TighterUpper is TighterLower for upper bounds.
func TighterUpper(a, b Bound) int { return tighter(a, b, true) }

// tighter compares two lower bounds, or two upper bounds with upper.
func tighter(a, b Bound, upper bool) int {
	switch {
	case !a.Set && !b.Set:
		return 0
	case !a.Set:
		return 1
	case !b.Set:
		return -1
	}
	c := b.V.Cmp(a.V)
	if upper {
		c = -c
	}
	if c != 0 {
		return c
	}
	switch {
	case a.Excl == b.Excl:
		return 0
	case b.Excl:
		return 1
	}
	return -1
}

// FloorRat returns the largest integer ≤ r.
func FloorRat(r *big.Rat) *big.Rat {
	q := new(big.Int)
	m := new(big.Int)
	q.DivMod(r.Num(), r.Denom(), m) // Euclidean: m ≥ 0, so q is the floor
	return new(big.Rat).SetInt(q)
}

var (
	regexpMu    sync.Mutex
	regexpCache = map[string]*regexp.Regexp{}
)

// CompileRegexp compiles a JSON Schema pattern with Go's RE2 syntax (the
// engine jsonschema/v6 uses by default); nil when it does not compile.
func CompileRegexp(p string) *regexp.Regexp {
	regexpMu.Lock()
	defer regexpMu.Unlock()
	if re, ok := regexpCache[p]; ok {
		return re
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	if len(regexpCache) > 4096 {
		clear(regexpCache)
	}
	regexpCache[p] = re
	return re
}

// AdmitsFormat reports whether a string value satisfies the schema's
// format where the validator asserts formats (drafts before 2019-09, see
// jsonschema/v6's Compiler.AssertFormat); true for unknown formats and
// non-strings.
func AdmitsFormat(s, v *canon.Value, draft int) bool {
	if s == nil || s.Kind != canon.Object {
		return true
	}
	f := s.Get("format")
	if draft >= 2019 || f == nil || f.Kind != canon.String || v.Kind != canon.String {
		return true
	}
	x := v.Str
	switch f.Str {
	case "date":
		_, err := time.Parse("2006-01-02", x)
		return err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, strings.ToUpper(x))
		return err == nil
	case "email":
		_, err := mail.ParseAddress(x)
		return err == nil && !strings.ContainsAny(x, "<> ")
	case "ipv4":
		ip := net.ParseIP(x)
		return ip != nil && ip.To4() != nil && !strings.Contains(x, ":")
	case "ipv6":
		return net.ParseIP(x) != nil && strings.Contains(x, ":")
	case "uri":
		u, err := url.Parse(x)
		return err == nil && u.IsAbs()
	case "uuid":
		return uuidRE.MatchString(x)
	}
	return true
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
