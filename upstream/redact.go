package upstream

import "github.com/mcpctl/mcpctl/internal/mcpclient"

// secrets are the strings of Options hidden in every error of an
// upstream: its header values (read from the environment) and its URL's
// credentials. A server may echo a header in an error, and Go's HTTP
// errors print the URL.
func secrets(o Options) []string {
	return append(mcpclient.HeaderSecrets(o.Headers), mcpclient.URLSecrets(o.URL)...)
}

// redact returns err with u's secrets hidden in its message (errors.Is and
// errors.As still see err).
func (u *Upstream) redact(err error) error { return mcpclient.Redact(err, u.secrets) }
