package toolset

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
)

// ClientConfigPrefix starts a source naming one server of an MCP client's
// configuration file: "client-config:FILE#NAME".
const ClientConfigPrefix = "client-config:"

// ClientServer is one server entry of an MCP client's configuration file.
// Exactly one of Command and URL is set.
type ClientServer struct {
	Name string
	// Command is the argv of a stdio server ("command" then "args").
	Command []string
	// Env is the extra environment of a stdio server, "KEY=VALUE" in the
	// file's order.
	Env []string
	// URL is the endpoint of a streamable HTTP server ("url").
	URL string
	// Headers are the "headers" of an HTTP server, in file order as
	// "Name: value" (never printed).
	Headers []string
	// Workspace is the folder ${workspaceFolder} names: the one holding
	// the file (the parent of a .vscode or .cursor folder). Set by
	// ReadClientConfig.
	Workspace string
}

// clientServerKeys are the members holding the server table, as desktop
// and IDE clients write them: "mcpServers" (Claude Desktop, Cursor,
// Windsurf, Cline), "servers" (VS Code's .vscode/mcp.json) and
// "mcp"."servers" (VS Code's settings.json).
var clientServerKeys = [][]string{{"mcpServers"}, {"servers"}, {"mcp", "servers"}}

// clientServerTable returns the server table of a client configuration and
// its JSON Pointer, or nil when root is not one.
func clientServerTable(root *canon.Value) (*canon.Value, string) {
	for _, path := range clientServerKeys {
		v := root
		for _, k := range path {
			v = v.Get(k)
		}
		if v != nil && v.Kind == canon.Object {
			return v, "/" + strings.Join(path, "/")
		}
	}
	return nil, ""
}

// DecodeClientConfig reads an MCP client's configuration file (JSON:
// {"mcpServers": {NAME: {"command", "args", "env"} | {"url"}}}, or the
// "servers" and "mcp"."servers" tables of VS Code) and returns its servers
// in file order. Errors are *InputError located in data; comments (JSONC)
// are not accepted.
func DecodeClientConfig(source string, data []byte) ([]ClientServer, error) {
	root, err := canon.Parse(data)
	if err != nil {
		return nil, syntaxError(source, data, err)
	}
	table, ptr := clientServerTable(&root)
	if table == nil {
		return nil, located(source, data, root.Start, "", "", `not an MCP client configuration: want {"mcpServers": {NAME: {"command": …, "args": […], "env": {…}} or {"url": …}}} or VS Code's {"servers": {…}}`)
	}
	servers := make([]ClientServer, 0, len(table.Members))
	for i := range table.Members {
		m := &table.Members[i]
		cs, serr := clientServer(m.Key, &m.Value, ptr+"/"+canon.EscapePointer(m.Key))
		if serr != nil {
			return nil, located(source, data, serr.off, "", serr.ptr, serr.msg)
		}
		servers = append(servers, cs)
	}
	return servers, nil
}

// clientServer reads one server entry.
func clientServer(name string, v *canon.Value, ptr string) (ClientServer, *shapeError) {
	cs := ClientServer{Name: name}
	if v.Kind != canon.Object {
		return cs, &shapeError{v.Start, ptr, fmt.Sprintf("server %q must be an object, got %s", name, v.Kind)}
	}
	if ty := v.Get("type"); ty != nil && ty.Kind == canon.String && ty.Str == "sse" {
		return cs, &shapeError{ty.Start, ptr + "/type", fmt.Sprintf(`server %q uses the HTTP+SSE transport of MCP 2024-11-05, which mcpctl does not speak; give its streamable HTTP endpoint (MCP 2025-03-26 and later) as "url" with "type": "http"`, name)}
	}
	for _, k := range []string{"url", "serverUrl"} {
		if u := v.Get(k); u != nil {
			if u.Kind != canon.String || u.Str == "" {
				return cs, &shapeError{u.Start, ptr + "/" + k, fmt.Sprintf("server %q: %q must be a URL string", name, k)}
			}
			cs.URL = u.Str
			headers, serr := stringMap(name, v, ptr, "headers", ": ")
			cs.Headers = headers
			return cs, serr
		}
	}
	cmd := v.Get("command")
	if cmd == nil || cmd.Kind != canon.String || cmd.Str == "" {
		return cs, &shapeError{v.Start, ptr, fmt.Sprintf(`server %q has neither a "command" string nor a "url"`, name)}
	}
	cs.Command = []string{cmd.Str}
	if args := v.Get("args"); args != nil {
		if args.Kind != canon.Array {
			return cs, &shapeError{args.Start, ptr + "/args", fmt.Sprintf(`server %q: "args" must be an array of strings`, name)}
		}
		for i := range args.Items {
			if args.Items[i].Kind != canon.String {
				return cs, &shapeError{args.Items[i].Start, fmt.Sprintf("%s/args/%d", ptr, i), fmt.Sprintf(`server %q: "args" must be an array of strings`, name)}
			}
			cs.Command = append(cs.Command, args.Items[i].Str)
		}
	}
	env, serr := stringMap(name, v, ptr, "env", "=")
	cs.Env = env
	return cs, serr
}

// stringMap reads the object member key of a server entry, whose values
// must be strings, as "NAME" + sep + "value" in file order.
func stringMap(server string, v *canon.Value, ptr, key, sep string) ([]string, *shapeError) {
	obj := v.Get(key)
	if obj == nil {
		return nil, nil
	}
	if obj.Kind != canon.Object {
		return nil, &shapeError{obj.Start, ptr + "/" + key, fmt.Sprintf(`server %q: %q must be an object of strings`, server, key)}
	}
	var out []string
	for _, m := range obj.Members {
		if m.Value.Kind != canon.String {
			return nil, &shapeError{m.Value.Start, ptr + "/" + key + "/" + canon.EscapePointer(m.Key), fmt.Sprintf(`server %q: %s %q must be a string`, server, key, m.Key)}
		}
		out = append(out, m.Key+sep+m.Value.Str)
	}
	return out, nil
}

// FetchClientServer reads the tool set of one server of a client
// configuration, its variables expanded (see expandClientVars): a stdio
// server started with its command, arguments and
// environment (added to mcpctl's own), or a streamable HTTP server at its
// URL with its headers (see clientHeaders; their values are hidden in
// errors). The set's Source is "client-config:FILE#NAME". Errors are as for
// LoadLive.
func FetchClientServer(ctx context.Context, file string, cs ClientServer, opts LiveOptions) (*Set, error) {
	source := ClientConfigPrefix + file + "#" + cs.Name
	cs.Command, cs.Env, cs.Headers = slices.Clone(cs.Command), slices.Clone(cs.Env), slices.Clone(cs.Headers)
	if err := expandClientVars(&cs, os.LookupEnv); err != nil {
		return nil, &InputError{Source: source, Offset: -1, Msg: err.Error(), Err: err}
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
			return nil, &InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("header %q: want a header name of letters, digits and !#$%%&'*+-.^_`|~ and a value on one line (the value is not shown)", name)}
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
func expandClientVars(cs *ClientServer, lookup func(string) (string, bool)) error {
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
