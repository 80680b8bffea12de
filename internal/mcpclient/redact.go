package mcpclient

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// minSecret is the shortest header value hidden in errors: shorter ones
// would hide ordinary words.
const minSecret = 4

// HeaderSecrets returns the strings of h to hide in errors: every value
// and, after an authentication scheme ("Bearer TOKEN"), the credentials
// alone.
func HeaderSecrets(h http.Header) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, vs := range h {
		for _, v := range vs {
			add(v)
			if _, credentials, ok := strings.Cut(v, " "); ok {
				add(strings.TrimSpace(credentials))
			}
		}
	}
	return out
}

// Redact returns err with every secret replaced by [redacted] in its
// message (a server may echo a header back in an error); errors.Is and
// errors.As see err. A nil err or no secrets return err itself.
func Redact(err error, secrets []string) error {
	if err == nil || len(secrets) == 0 {
		return err
	}
	return &redactedError{err: err, secrets: secrets}
}

type redactedError struct {
	err     error
	secrets []string
}

func (e *redactedError) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	return msg
}

func (e *redactedError) Unwrap() error { return e.err }

// URLSecrets returns the strings of a URL to hide in errors: the password
// and user name of its userinfo and the values of its query (Go's HTTP
// errors print the URL with the password masked, but not the user name or
// the query), each value decoded and as written. A URL that does not parse gives none.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var vals []string
	if u.User != nil {
		p, _ := u.User.Password()
		vals = append(vals, p, u.User.Username())
	}
	for _, vs := range u.Query() {
		vals = append(vals, vs...)
	}
	for _, pair := range strings.Split(u.RawQuery, "&") { // as printed
		_, v, _ := strings.Cut(pair, "=")
		vals = append(vals, v)
	}
	var out []string
	for _, v := range vals {
		if len(v) >= minSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
