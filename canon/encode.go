package canon

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// AppendNumber appends the canonical form of the JSON number text num to dst,
// as RFC 8785 §3.2.2.3 prescribes (the ECMAScript Number.prototype.toString
// of the IEEE 754 double nearest to num): 1.0 → 1, 1e2 → 100, -0 → 0,
// 1e21 → 1e+21, 0.000001 → 0.000001, 1e-7 → 1e-7, 5e-324 → 5e-324.
//
// Deviations, on purpose, where a double cannot hold the value:
//
//   - An integer literal (digits only, no fraction, no exponent) is written
//     as its exact decimal digits, whatever its magnitude: 9007199254740993
//     stays 9007199254740993 (JCS would round it to 9007199254740992), so two
//     different large identifiers never compare equal. Up to 2^53 this is
//     exactly what JCS prints; beyond it, different spellings of one value
//     (12345678901234567890 and 1.234567890123456789e19) do not meet.
//   - A number beyond the double range (1e400, which JCS cannot represent) is
//     written exactly in normalized scientific form, d.ddde+N with no
//     redundant zeros: 1E400, 10e399 and 0.1e401 all become 1e+400.
//
// Numbers that underflow (1e-400) become the double they round to, 0. num
// must be a JSON number (RFC 8259 §6); other text is appended unchanged.
func AppendNumber(dst []byte, num string) []byte {
	if digits, neg, ok := plainInt(num); ok {
		if digits == "0" {
			return append(dst, '0') // also -0
		}
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, digits...)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		if math.IsInf(f, 0) {
			if out, ok := appendExactDecimal(dst, num); ok {
				return out
			}
		}
		return append(dst, num...)
	}
	return AppendFloat(dst, f)
}

// plainInt reports whether num is an integer literal, [-]digits, and returns
// its digits without sign and leading zeros ("0" for zero).
func plainInt(num string) (digits string, neg, ok bool) {
	s := num
	if len(s) > 0 && s[0] == '-' {
		s, neg = s[1:], true
	}
	if s == "" {
		return "", false, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false, false
		}
	}
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s, neg, true
}

// appendExactDecimal appends the JSON number num, exactly, in the form
// [-]d[.ddd]e±N with no leading or trailing zeros in the digits. It reports
// false when num is not a JSON number or is zero.
func appendExactDecimal(dst []byte, num string) ([]byte, bool) {
	s := num
	neg := false
	if len(s) > 0 && s[0] == '-' {
		s, neg = s[1:], true
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return dst, false
	}
	trimmed := strings.TrimRight(digits, "0")
	// value = digits × 10^(exp − len(frac)); the first digit's power of ten
	// is exp − len(frac) + len(digits) − 1.
	exp := new(big.Int)
	if hasExp {
		if _, ok := exp.SetString(strings.TrimPrefix(expText, "+"), 10); !ok {
			return dst, false
		}
	}
	exp.Add(exp, big.NewInt(int64(len(digits)-len(frac)-1)))
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, trimmed[0])
	if len(trimmed) > 1 {
		dst = append(dst, '.')
		dst = append(dst, trimmed[1:]...)
	}
	dst = append(dst, 'e')
	if exp.Sign() >= 0 {
		dst = append(dst, '+')
	}
	return exp.Append(dst, 10), true
}

// AppendFloat appends f in the ECMAScript Number.prototype.toString form that
// RFC 8785 §3.2.2.3 requires (ECMA-262 §7.1.12.1: the shortest digits that
// round-trip, in plain notation for exponents in [-7, 21), scientific with an
// explicit exponent sign otherwise). f must be finite; -0 is written as 0.
func AppendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits, as d[.dddd]e±xx.
	var tmp, dig [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	digits := append(dig[:0], s[0])
	if e > 1 {
		digits = append(digits, s[2:e]...)
	}
	exp := 0
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[e+1] == '-' {
		exp = -exp
	}
	k := len(digits)
	n := exp + 1 // position of the decimal point relative to the digits
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string escaped as RFC 8785 §3.2.2.2
// prescribes: only '"', '\\' and control characters below U+0020 are
// escaped, with the short forms \b \t \n \f \r where they exist and \u00xx
// (lower-case hex) otherwise; everything else is written as UTF-8. s must be
// valid UTF-8, as every string Parse returns is; invalid bytes are copied
// unchanged.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// CompareKeys orders member names by their UTF-16 code units, as RFC 8785
// §3.2.3 requires. It returns -1, 0 or +1. a and b are UTF-8; on invalid
// UTF-8 the order is still total and deterministic.
func CompareKeys(a, b string) int { return compareUTF16(a, b) }

// compareUTF16 compares UTF-8 texts in UTF-16 code unit order without
// decoding them. UTF-8 byte order is code point order, which is UTF-16 order
// except that supplementary characters (4-byte sequences, lead bytes F0–F4;
// surrogates D800–DBFF in UTF-16) sort before U+E000–U+FFFF (lead bytes
// EE–EF). The first differing bytes of two valid texts are either both lead
// bytes or both continuation bytes of runes of one length, so ranking lead
// bytes EE–EF above F0–FF, and comparing bytes otherwise, is enough.
func compareUTF16[T string | []byte](a, b T) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmpInt(len(a), len(b))
	}
	ca, cb := a[i], b[i]
	if ra, rb := utf16Rank(ca), utf16Rank(cb); ra != rb {
		return cmpInt(ra, rb)
	}
	return cmpInt(int(ca), int(cb))
}

// utf16Rank groups bytes by where their rune sorts in UTF-16: 0 for bytes
// below EE (code points below U+E000, and continuation bytes), 1 for lead
// bytes F0–FF (supplementary, high surrogates), 2 for EE–EF (U+E000–U+FFFF).
func utf16Rank(c byte) int {
	switch {
	case c < 0xEE:
		return 0
	case c < 0xF0:
		return 2
	}
	return 1
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// encoder writes canonical JSON into buf.
type encoder struct {
	buf []byte
	// order holds per-depth member index slices reused across objects.
	order [][]int
	// spans and scratch are reused by set to sort encoded members.
	spans   []span
	scratch []byte
}

type span struct{ start, end int }

// grow makes room for about n more bytes in e.buf.
func (e *encoder) grow(n int) {
	if n > 0 && cap(e.buf)-len(e.buf) < n {
		e.buf = slices.Grow(e.buf, n)
	}
}

// AppendJCS appends the RFC 8785 canonical form of v to dst: members sorted by
// UTF-16 code units, numbers and strings as JCS prescribes, no whitespace.
// Array order is kept everywhere.
func AppendJCS(dst []byte, v *Value) []byte {
	e := encoder{buf: dst}
	e.grow(v.End - v.Start)
	e.value(v, posData, 0)
	return e.buf
}

// position says how the encoder must treat a value: as plain instance data
// (nothing sorted but object keys), as a JSON Schema (set keywords sorted,
// subschemas recognized), or as a map whose member values are schemas.
type position uint8

const (
	posData position = iota
	posSchema
	posSchemaMap   // properties, $defs, …: every member value is a schema
	posSchemaArray // allOf, anyOf, …: every item is a schema
	posSchemaItems // items: a schema, or (draft-07) an array of schemas
	posDependencies
	posTool // an MCP Tool object: inputSchema and outputSchema are schemas
)

// schemaKeywords maps each JSON Schema keyword whose value holds subschemas
// to how that value is read (JSON Schema 2020-12 Core §10, Validation §6;
// draft-07 §6 and §9 for definitions, dependencies and array-form items).
var schemaKeywords = map[string]position{
	"properties":            posSchemaMap,
	"patternProperties":     posSchemaMap,
	"$defs":                 posSchemaMap,
	"definitions":           posSchemaMap,
	"dependentSchemas":      posSchemaMap,
	"dependencies":          posDependencies,
	"additionalProperties":  posSchema,
	"unevaluatedProperties": posSchema,
	"propertyNames":         posSchema,
	"items":                 posSchemaItems,
	"additionalItems":       posSchema,
	"unevaluatedItems":      posSchema,
	"contains":              posSchema,
	"not":                   posSchema,
	"if":                    posSchema,
	"then":                  posSchema,
	"else":                  posSchema,
	"contentSchema":         posSchema,
	"allOf":                 posSchemaArray,
	"anyOf":                 posSchemaArray,
	"oneOf":                 posSchemaArray,
	"prefixItems":           posSchemaArray,
}

// setKeywords are the schema keywords whose array value is an unordered set.
func isSetKeyword(k string) bool { return k == "required" || k == "type" || k == "enum" }

func (e *encoder) value(v *Value, pos position, depth int) {
	switch v.Kind {
	case Null:
		e.buf = append(e.buf, "null"...)
	case Bool:
		if v.Bool {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case Number:
		e.buf = AppendNumber(e.buf, v.Str)
	case String:
		e.buf = AppendString(e.buf, v.Str)
	case Array:
		itemPos := posData
		switch pos {
		case posSchemaArray, posSchemaItems:
			itemPos = posSchema
		}
		e.buf = append(e.buf, '[')
		for i := range v.Items {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.value(&v.Items[i], itemPos, depth+1)
		}
		e.buf = append(e.buf, ']')
	case Object:
		switch pos {
		case posSchemaItems:
			pos = posSchema // a single items schema
		case posSchemaArray:
			pos = posData // malformed: not an array of schemas
		}
		e.object(v, pos, depth)
	}
}

func (e *encoder) object(v *Value, pos position, depth int) {
	for len(e.order) <= depth {
		e.order = append(e.order, nil)
	}
	idx := e.order[depth][:0]
	for i := range v.Members {
		idx = append(idx, i)
	}
	sorted := true
	for i := 1; i < len(idx); i++ {
		if compareUTF16(v.Members[i-1].Key, v.Members[i].Key) > 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortFunc(idx, func(a, b int) int { return compareUTF16(v.Members[a].Key, v.Members[b].Key) })
	}
	e.order[depth] = idx
	e.buf = append(e.buf, '{')
	for n, i := range idx {
		m := &v.Members[i]
		if n > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = AppendString(e.buf, m.Key)
		e.buf = append(e.buf, ':')
		child := posData
		switch pos {
		case posSchema:
			if p, ok := schemaKeywords[m.Key]; ok {
				child = p
			} else if isSetKeyword(m.Key) && m.Value.Kind == Array {
				e.set(&m.Value, depth+1)
				continue
			}
		case posSchemaMap:
			child = posSchema
		case posDependencies:
			if m.Value.Kind == Object || m.Value.Kind == Bool {
				child = posSchema
			}
		case posTool:
			if m.Key == "inputSchema" || m.Key == "outputSchema" {
				child = posSchema
			}
		}
		e.value(&m.Value, child, depth+1)
	}
	e.buf = append(e.buf, '}')
}

// set writes an array of a set keyword with its members sorted by their
// canonical encoding; members are instance data. The members are encoded in
// place at the end of e.buf, then written back in sorted order.
func (e *encoder) set(v *Value, depth int) {
	if len(v.Items) <= 1 {
		e.value(v, posData, depth)
		return
	}
	start := len(e.buf)
	spans := e.spans[:0]
	for i := range v.Items {
		s := len(e.buf)
		e.value(&v.Items[i], posData, depth+1) // never reaches set again
		spans = append(spans, span{s - start, len(e.buf) - start})
	}
	e.scratch = append(e.scratch[:0], e.buf[start:]...)
	enc := e.scratch
	slices.SortFunc(spans, func(a, b span) int {
		return compareUTF16(enc[a.start:a.end], enc[b.start:b.end])
	})
	e.buf = append(e.buf[:start], '[')
	for i, sp := range spans {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, enc[sp.start:sp.end]...)
	}
	e.buf = append(e.buf, ']')
	e.spans = spans
}
