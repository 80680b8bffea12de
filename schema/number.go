package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/message"
)

// maxDecimalExponent bounds |power of ten| of the numbers validated.
// jsonschema v6 reads every number it compares through
// math/big.Rat.SetString and dereferences the result: past 1,000,000
// SetString fails and the validator panics; close to it, one comparison
// costs a power of five with a million digits (a tenth of a second of CPU
// per keyword). 10,000 keeps every comparison cheap and is far beyond what
// any JSON peer can hold as a double (about ±1.8e308).
const maxDecimalExponent = 10_000

// Representable reports whether the JSON number text num (RFC 8259 §6
// grammar) is one the validator holds exactly and compares cheaply: an
// exponent of at most 15 digits, and zero or digits × 10^e with
// |e| ≤ 10,000 counting the digits after the decimal point (see
// maxDecimalExponent). 1e1000000000, -1e1000000000, 1e-1000000000 and
// 1E+999999999999 are valid JSON and not representable.
func Representable(num string) bool {
	s := strings.TrimPrefix(num, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	exp := int64(0)
	if hasExp {
		e, ok := exponent(expText)
		if !ok {
			return false
		}
		exp = e
	}
	if strings.Trim(intPart+frac, "0") == "" {
		return true // zero, whatever its (readable) exponent
	}
	exp -= int64(len(frac))
	return exp >= -maxDecimalExponent && exp <= maxDecimalExponent
}

// exponent reads a signed decimal exponent, reporting false when its
// magnitude exceeds 1e15 (far past maxDecimalExponent, never overflowing).
func exponent(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimLeft(s, "+-"), "0")
	if len(s) > 15 {
		return 0, false
	}
	var e int64
	for _, c := range s {
		e = e*10 + int64(c-'0')
	}
	if neg {
		e = -e
	}
	return e, true
}

// UnrepresentableNumber is the jsonschema ErrorKind of a number that is
// not Representable. Validate reports it at the number's location instead
// of handing the instance to the validator.
type UnrepresentableNumber struct {
	// Number is the number's text, shortened to 40 bytes.
	Number string
}

// KeywordPath is empty: no schema keyword failed; the value cannot be
// compared with any.
func (*UnrepresentableNumber) KeywordPath() []string { return nil }

// LocalizedString says what is wrong and which range is accepted.
func (k *UnrepresentableNumber) LocalizedString(*message.Printer) string {
	return fmt.Sprintf("number %s is out of range: its decimal exponent must be within ±%d", k.Number, maxDecimalExponent)
}

// shorten keeps the first n bytes of s, marking a cut with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// maxNumberCauses bounds how many unrepresentable numbers one error lists.
const maxNumberCauses = 10

// badNumber is a number that is not Representable and where it is.
type badNumber struct {
	loc []string
	num string
}

// unrepresentable lists the numbers in a decoded JSON value (the form
// Instance returns) that are not Representable, sorted by JSON Pointer, at
// most maxNumberCauses.
func unrepresentable(v any) []badNumber {
	var out []badNumber
	var walk func(v any, loc []string)
	walk = func(v any, loc []string) {
		switch x := v.(type) {
		case json.Number:
			if !Representable(string(x)) {
				out = append(out, badNumber{slices.Clone(loc), string(x)})
			}
		case map[string]any:
			for k, e := range x {
				walk(e, append(loc, k))
			}
		case []any:
			for i, e := range x {
				walk(e, append(loc, strconv.Itoa(i)))
			}
		}
	}
	walk(v, nil)
	slices.SortFunc(out, func(a, b badNumber) int { return strings.Compare(Pointer(a.loc), Pointer(b.loc)) })
	return out[:min(len(out), maxNumberCauses)]
}

// numberError is the validation error for an instance holding numbers the
// validator cannot represent, shaped as jsonschema v6 shapes its own: a
// root naming the schema with one leaf per number; nil when there are none.
func numberError(schemaURL string, instance any) *jsonschema.ValidationError {
	bad := unrepresentable(instance)
	if len(bad) == 0 {
		return nil
	}
	root := &jsonschema.ValidationError{SchemaURL: schemaURL, ErrorKind: &kind.Schema{Location: schemaURL}}
	for _, b := range bad {
		root.Causes = append(root.Causes, &jsonschema.ValidationError{
			SchemaURL:        schemaURL,
			InstanceLocation: b.loc,
			ErrorKind:        &UnrepresentableNumber{Number: shorten(b.num, 40)},
		})
	}
	return root
}
