package mcpclient

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/toolset"
)

// FetchClientServer reads the tool set of one server of a client
// configuration, its variables expanded (see expandClientVars): a stdio
// server started with its command, arguments and
// environment (added to mcpctl's own), or a streamable HTTP server at its
// URL with its headers (see clientHeaders; their values are hidden in
// errors). The set's Source is "client-config:FILE#NAME". Errors are as for
// LoadLive.
func FetchClientServer(ctx context.Context, file string, cs toolset.ClientServer, opts LiveOptions) (*toolset.Set, error) {
	source := toolset.ClientConfigPrefix + file + "#" + cs.Name
	cs.Command, cs.Env, cs.Headers = slices.Clone(cs.Command), slices.Clone(cs.Env), slices.Clone(cs.Headers)
	if err := expandClientVars(&cs, os.LookupEnv); err != nil {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: err.Error(), Err: err}
	}
	if cs.URL != "" {
		h, err := clientHeaders(source, cs.Headers, opts.Headers)
		if err != nil {
			return nil, err
		}
		set, err := fetch(ctx, source, &httpEndpoint{url: cs.URL, headers: h}, opts)
		return set, Redact(err, HeaderSecrets(h))
	}
	opts.Env = append(slices.Clip(opts.Env), cs.Env...)
	return fetch(ctx, source, &stdioEndpoint{argv: cs.Command, opts: opts}, opts)
}

// clientHeaders returns the headers sent to an HTTP server of a client
// configuration: given (LiveOptions.Headers: --header, the source token)
// and then those of the file ("Name: value") whose names given lacks. A
// name that is not an HTTP field name (RFC 9110 section 5.1) or a value
// with a line break is an *InputError that never quotes the value.
func clientHeaders(source string, file []string, given http.Header) (http.Header, error) {
	h := given.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, line := range file {
		name, value, _ := strings.Cut(line, ": ")
		if !IsHeaderName(name) || strings.ContainsAny(value, "\r\n") {
			return nil, &toolset.InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("header %q: want a header name of letters, digits and !#$%%&'*+-.^_`|~ and a value on one line (the value is not shown)", name)}
		}
		if _, ok := given[http.CanonicalHeaderKey(name)]; !ok {
			h.Add(name, value)
		}
	}
	return h, nil
}

// IsHeaderName reports whether s is an HTTP field name (RFC 9110 section
// 5.1: a token, section 5.6.2).
func IsHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// clientVar matches the variables clients expand in their configurations:
// ${env:NAME}, ${workspaceFolder}, ${userHome}, ${input:ID} (VS Code,
// Cursor) and ${NAME} or ${NAME:-default} (Claude Code's .mcp.json).
var clientVar = regexp.MustCompile(`\$\{([^}]*)\}`)

// expandClientVars expands the variables of every string of cs: the
// environment from lookup, ${workspaceFolder} as cs.Workspace, ${userHome}
// as $HOME. ${input:ID} (a prompt of VS Code's) and unset variables without
// a default are errors.
func expandClientVars(cs *toolset.ClientServer, lookup func(string) (string, bool)) error {
	var err error
	expand := func(s string) string {
		return clientVar.ReplaceAllStringFunc(s, func(m string) string {
			name := m[2 : len(m)-1]
			switch {
			case name == "workspaceFolder":
				return cs.Workspace
			case name == "userHome":
				name = "env:HOME"
			case strings.HasPrefix(name, "input:"):
				err = cmp.Or(err, fmt.Errorf("server %q: %s is asked of the user by VS Code; put the value in the file or in an ${env:NAME}", cs.Name, m))
				return m
			}
			name, def, hasDef := strings.Cut(strings.TrimPrefix(name, "env:"), ":-")
			if v, ok := lookup(name); ok {
				return v
			}
			if !hasDef {
				err = cmp.Or(err, fmt.Errorf("server %q: %s is not set in the environment", cs.Name, m))
			}
			return def
		})
	}
	for _, list := range [][]string{cs.Command, cs.Env, cs.Headers} {
		for i := range list {
			list[i] = expand(list[i])
		}
	}
	cs.URL = expand(cs.URL)
	return err
}
