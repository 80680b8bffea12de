package toolset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	for _, k := range []string{"url", "serverUrl"} {
		if u := v.Get(k); u != nil {
			if u.Kind != canon.String || u.Str == "" {
				return cs, &shapeError{u.Start, ptr + "/" + k, fmt.Sprintf("server %q: %q must be a URL string", name, k)}
			}
			cs.URL = u.Str
			return cs, nil
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
	if env := v.Get("env"); env != nil {
		if env.Kind != canon.Object {
			return cs, &shapeError{env.Start, ptr + "/env", fmt.Sprintf(`server %q: "env" must be an object of strings`, name)}
		}
		for _, m := range env.Members {
			if m.Value.Kind != canon.String {
				return cs, &shapeError{m.Value.Start, ptr + "/env/" + canon.EscapePointer(m.Key), fmt.Sprintf(`server %q: env %q must be a string`, name, m.Key)}
			}
			cs.Env = append(cs.Env, m.Key+"="+m.Value.Str)
		}
	}
	return cs, nil
}

// FetchClientServer reads the tool set of one server of a client
// configuration: a stdio server started with its command, arguments and
// environment (added to mcpctl's own), or a streamable HTTP server at its
// URL. The set's Source is "client-config:FILE#NAME". Errors are as for
// LoadLive.
func FetchClientServer(ctx context.Context, file string, cs ClientServer, opts LiveOptions) (*Set, error) {
	source := ClientConfigPrefix + file + "#" + cs.Name
	if cs.URL != "" {
		return fetch(ctx, source, &httpEndpoint{url: cs.URL}, opts)
	}
	opts.Env = append(slices.Clip(opts.Env), cs.Env...)
	return fetch(ctx, source, &stdioEndpoint{argv: cs.Command, opts: opts}, opts)
}

// loadClientConfig implements Load for "client-config:FILE#NAME"; NAME may
// be left out when the file has exactly one server.
func loadClientConfig(ctx context.Context, source string, opts LoadOptions) (*Set, error) {
	file, name, _ := strings.Cut(strings.TrimPrefix(source, ClientConfigPrefix), "#")
	if file == "" {
		return nil, &InputError{Source: source, Offset: -1, Msg: "want client-config:FILE#NAME, e.g. client-config:claude_desktop_config.json#filesystem"}
	}
	servers, err := ReadClientConfig(file, opts.Dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(servers))
	for i, cs := range servers {
		if cs.Name == name || (name == "" && len(servers) == 1) {
			return FetchClientServer(ctx, file, cs, opts.Live)
		}
		names[i] = cs.Name
	}
	msg := fmt.Sprintf("no server %q; the file has: %s", name, strings.Join(names, ", "))
	if name == "" {
		msg = "name one server with client-config:FILE#NAME; the file has: " + strings.Join(names, ", ")
	}
	return nil, &InputError{Source: source, Offset: -1, Msg: msg}
}

// ReadClientConfig reads and decodes a client configuration file; a
// relative path is taken from dir ("" is the working directory).
func ReadClientConfig(file, dir string) ([]ClientServer, error) {
	path := file
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{Source: file, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", unwrapPathError(err)), Err: err}
	}
	return DecodeClientConfig(file, data)
}
