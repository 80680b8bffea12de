package serveconfig

import (
	"errors"
	"strings"
)

// Errors of header fields a config names (RFC 9110 section 5).
var (
	errHeaderName  = errors.New("a header name must be a token (letters, digits and !#$%&'*+-.^_`|~, no spaces or colons)")
	ErrHeaderValue = errors.New("a header value must not hold a line break (CR, LF) or another control character but tab")
)

// CheckHeader reports whether name and value can be sent as one HTTP
// header field: the name a token (RFC 9110 section 5.1), the value free of
// control characters but horizontal tab (section 5.5), so that no value can
// end the field and start another.
func CheckHeader(name, value string) error {
	if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
		return errHeaderName
	}
	return CheckHeaderValue(value)
}

// CheckHeaderValue reports whether v can be sent as a header field value
// (RFC 9110 section 5.5): no control character but horizontal tab.
func CheckHeaderValue(v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return ErrHeaderValue
		}
	}
	return nil
}

// isTokenChar reports whether r may appear in an RFC 9110 token.
func isTokenChar(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return r < 0x80 && strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
