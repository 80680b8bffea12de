package canon

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExactInt is 2^53, the largest magnitude below which every integer is an
// exact IEEE 754 double.
const maxExactInt = 1 << 53

// AppendNumber appends the canonical form of the JSON number text num to dst,
// as RFC 8785 §3.2.2.3 prescribes (the ECMAScript Number.prototype.toString
// of the IEEE 754 double nearest to num): 1.0 → 1, 1e2 → 100, -0 → 0,
// 1e21 → 1e+21, 0.000001 → 0.000001, 1e-7 → 1e-7.
//
// Deviation, on purpose: an integer literal (no fraction, no exponent) whose
// magnitude exceeds 2^53 is kept as its exact decimal digits instead of being
// rounded to the nearest double, so that two different large identifiers never
// compare equal. Numbers that overflow a double (1e400) are likewise kept as
// their source text, since JCS has no form for them.
func AppendNumber(dst []byte, num string) []byte {
	if isPlainInt(num) {
		// Fast path for the common case: small integers print as themselves,
		// minus a negative zero's sign.
		if len(num) <= 15 {
			if num == "-0" {
				return append(dst, '0')
			}
			return append(dst, num...)
		}
		digits := strings.TrimPrefix(num, "-")
		if len(digits) > 16 || mustParse(digits) > maxExactInt {
			return append(dst, num...)
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) {
		return append(dst, num...)
	}
	return AppendFloat(dst, f)
}

func isPlainInt(num string) bool {
	s := num
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func mustParse(digits string) float64 {
	f, _ := strconv.ParseFloat(digits, 64)
	return f
}

// AppendFloat appends f in the ECMAScript Number.prototype.toString form that
// RFC 8785 §3.2.2.3 requires. f must be finite.
func AppendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-trip digits, as d.ddddde±x.
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	mant, expPart, _ := strings.Cut(string(s), "e")
	exp, _ := strconv.Atoi(expPart)
	digits := strings.Replace(mant, ".", "", 1)
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
// (lower-case hex) otherwise; everything else is written as UTF-8.
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
// §3.2.3 requires. It returns -1, 0 or +1.
func CompareKeys(a, b string) int {
	// UTF-8 byte order equals code point order, which equals UTF-16 order
	// except between U+E000–U+FFFF and supplementary characters (encoded as
	// surrogates D800–DFFF in UTF-16). Compare bytes, and fix up only that case.
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmpInt(len(a), len(b))
	}
	if a[i] < 0xEE && b[i] < 0xEE {
		return cmpInt(int(a[i]), int(b[i]))
	}
	// Back up to the start of the differing rune.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmpInt(utf16Key(ra), utf16Key(rb))
}

// utf16Key maps a rune to the value of its first UTF-16 code unit, with
// supplementary characters ordered as their high surrogate.
func utf16Key(r rune) int {
	if r >= 0x10000 {
		return 0xD800 + int((r-0x10000)>>10)
	}
	return int(r)
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

// Encoder writes canonical JSON. The zero value encodes plain RFC 8785 JCS;
// set Schema to treat the value being encoded as a JSON Schema (DESIGN §3.3).
type encoder struct {
	buf []byte
	// scratch holds per-depth member index slices reused across objects.
	order [][]int
}

// AppendJCS appends the RFC 8785 canonical form of v to dst: members sorted by
// UTF-16 code units, numbers and strings as JCS prescribes, no whitespace.
// Array order is kept everywhere.
func AppendJCS(dst []byte, v *Value) []byte {
	e := encoder{buf: dst}
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
		if CompareKeys(v.Members[i-1].Key, v.Members[i].Key) > 0 {
			sorted = false
			break
		}
	}
	if !sorted {
		slices.SortFunc(idx, func(a, b int) int { return CompareKeys(v.Members[a].Key, v.Members[b].Key) })
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
// canonical encoding; members are instance data.
func (e *encoder) set(v *Value, depth int) {
	if len(v.Items) <= 1 {
		e.value(v, posData, depth)
		return
	}
	enc := make([][]byte, len(v.Items))
	for i := range v.Items {
		sub := encoder{}
		sub.value(&v.Items[i], posData, 0)
		enc[i] = sub.buf
	}
	slices.SortFunc(enc, func(a, b []byte) int { return compareCanonical(a, b) })
	e.buf = append(e.buf, '[')
	for i, b := range enc {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, b...)
	}
	e.buf = append(e.buf, ']')
}

func compareCanonical(a, b []byte) int { return CompareKeys(string(a), string(b)) }
