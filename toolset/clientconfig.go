package toolset

import (
	"fmt"
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
			return nil, located(source, data, serr.Offset, "", serr.Pointer, serr.Msg)
		}
		servers = append(servers, cs)
	}
	return servers, nil
}

// clientServer reads one server entry.
func clientServer(name string, v *canon.Value, ptr string) (ClientServer, *ShapeError) {
	cs := ClientServer{Name: name}
	if v.Kind != canon.Object {
		return cs, &ShapeError{v.Start, ptr, fmt.Sprintf("server %q must be an object, got %s", name, v.Kind)}
	}
	if ty := v.Get("type"); ty != nil && ty.Kind == canon.String && ty.Str == "sse" {
		return cs, &ShapeError{ty.Start, ptr + "/type", fmt.Sprintf(`server %q uses the HTTP+SSE transport of MCP 2024-11-05, which mcpctl does not speak; give its streamable HTTP endpoint (MCP 2025-03-26 and later) as "url" with "type": "http"`, name)}
	}
	for _, k := range []string{"url", "serverUrl"} {
		if u := v.Get(k); u != nil {
			if u.Kind != canon.String || u.Str == "" {
				return cs, &ShapeError{u.Start, ptr + "/" + k, fmt.Sprintf("server %q: %q must be a URL string", name, k)}
			}
			cs.URL = u.Str
			headers, serr := stringMap(name, v, ptr, "headers", ": ")
			cs.Headers = headers
			return cs, serr
		}
	}
	cmd := v.Get("command")
	if cmd == nil || cmd.Kind != canon.String || cmd.Str == "" {
		return cs, &ShapeError{v.Start, ptr, fmt.Sprintf(`server %q has neither a "command" string nor a "url"`, name)}
	}
	cs.Command = []string{cmd.Str}
	if args := v.Get("args"); args != nil {
		if args.Kind != canon.Array {
			return cs, &ShapeError{args.Start, ptr + "/args", fmt.Sprintf(`server %q: "args" must be an array of strings`, name)}
		}
		for i := range args.Items {
			if args.Items[i].Kind != canon.String {
				return cs, &ShapeError{args.Items[i].Start, fmt.Sprintf("%s/args/%d", ptr, i), fmt.Sprintf(`server %q: "args" must be an array of strings`, name)}
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
func stringMap(server string, v *canon.Value, ptr, key, sep string) ([]string, *ShapeError) {
	obj := v.Get(key)
	if obj == nil {
		return nil, nil
	}
	if obj.Kind != canon.Object {
		return nil, &ShapeError{obj.Start, ptr + "/" + key, fmt.Sprintf(`server %q: %q must be an object of strings`, server, key)}
	}
	var out []string
	for _, m := range obj.Members {
		if m.Value.Kind != canon.String {
			return nil, &ShapeError{m.Value.Start, ptr + "/" + key + "/" + canon.EscapePointer(m.Key), fmt.Sprintf(`server %q: %s %q must be a string`, server, key, m.Key)}
		}
		out = append(out, m.Key+sep+m.Value.Str)
	}
	return out, nil
}
