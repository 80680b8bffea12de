package canon

import (
	"errors"
	"fmt"
	"strings"
)

// ErrPointer is wrapped by the errors of PointerTokens: a JSON Pointer
// that is not valid RFC 6901 syntax.
var ErrPointer = errors.New("invalid JSON Pointer")

// EscapePointer escapes one reference token for a JSON Pointer (RFC 6901 §3):
// "~" becomes "~0" and "/" becomes "~1".
func EscapePointer(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// UnescapePointer undoes EscapePointer for one reference token (RFC 6901
// §4: "~1" becomes "/", then "~0" becomes "~"). Other uses of "~" are left
// as they are; ValidToken tells them apart.
func UnescapePointer(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// ValidToken reports whether every "~" of the escaped token is followed by
// 0 or 1 (RFC 6901 §3).
func ValidToken(token string) bool {
	for i := strings.IndexByte(token, '~'); i >= 0; i = strings.IndexByte(token, '~') {
		if i+1 == len(token) || (token[i+1] != '0' && token[i+1] != '1') {
			return false
		}
		token = token[i+2:]
	}
	return true
}

// PointerTokens splits the JSON Pointer ptr into its unescaped reference
// tokens: none for "" (the whole document). A pointer that does not start
// with "/" or holds a "~" not followed by 0 or 1 is an error wrapping
// ErrPointer.
func PointerTokens(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("%w %q: it must be empty or start with \"/\"", ErrPointer, ptr)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if !ValidToken(t) {
			return nil, fmt.Errorf("%w %q: \"~\" must be followed by 0 or 1", ErrPointer, ptr)
		}
		toks[i] = UnescapePointer(t)
	}
	return toks, nil
}

// ArrayIndex reads a reference token as an array index: decimal digits
// without a leading zero (RFC 6901 §4), small enough for an int.
func ArrayIndex(tok string) (int, bool) {
	if tok == "" || len(tok) > 9 || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
		n = n*10 + int(tok[i]-'0')
	}
	return n, true
}

// At returns the value the JSON Pointer ptr names in v, or nil when it
// names nothing.
func (v *Value) At(ptr string) *Value {
	cur, complete := v.walk(ptr)
	if !complete {
		return nil
	}
	return cur
}

// Nearest walks the RFC 6901 JSON Pointer ptr from v and returns the value
// it names or, when it names nothing, the deepest value on its way (v itself
// for "" or a first token that does not resolve). Array indexes are decimal
// without leading zeros.
func (v *Value) Nearest(ptr string) *Value {
	cur, _ := v.walk(ptr)
	return cur
}

// walk resolves ptr from v as far as it goes: the last value reached, and
// whether that is the whole of ptr. A "~" not followed by 0 or 1 is read
// as itself.
func (v *Value) walk(ptr string) (*Value, bool) {
	if ptr == "" || ptr[0] != '/' {
		return v, ptr == ""
	}
	cur := v
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = UnescapePointer(tok)
		var next *Value
		switch cur.Kind {
		case Object:
			next = cur.Get(tok)
		case Array:
			if i, ok := ArrayIndex(tok); ok && i < len(cur.Items) {
				next = &cur.Items[i]
			}
		}
		if next == nil {
			return cur, false
		}
		cur = next
	}
	return cur, true
}
