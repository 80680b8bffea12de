package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/toolset"
)

// loadClientConfig implements Load for "client-config:FILE#NAME"; NAME may
// be left out when the file has exactly one server.
func loadClientConfig(ctx context.Context, source string, opts LoadOptions) (*toolset.Set, error) {
	file, name, _ := strings.Cut(strings.TrimPrefix(source, toolset.ClientConfigPrefix), "#")
	if file == "" {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "want client-config:FILE#NAME, e.g. client-config:claude_desktop_config.json#filesystem"}
	}
	servers, err := ReadClientConfig(file, opts.Dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(servers))
	for i, cs := range servers {
		if cs.Name == name || (name == "" && len(servers) == 1) {
			return mcpclient.FetchClientServer(ctx, file, cs, opts.Live)
		}
		names[i] = cs.Name
	}
	msg := fmt.Sprintf("no server %q; the file has: %s", name, strings.Join(names, ", "))
	if name == "" {
		msg = "name one server with client-config:FILE#NAME; the file has: " + strings.Join(names, ", ")
	}
	return nil, &toolset.InputError{Source: source, Offset: -1, Msg: msg}
}

// ReadClientConfig reads and decodes a client configuration file (a
// relative path is taken from dir, "" being the working directory) and
// expands its variables (see expandClientVars).
func ReadClientConfig(file, dir string) ([]toolset.ClientServer, error) {
	path := file
	if dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &toolset.InputError{Source: file, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", safefile.UnwrapPath(err)), Err: err}
	}
	servers, err := toolset.DecodeClientConfig(file, data)
	if err != nil {
		return nil, err
	}
	ws, _ := filepath.Abs(filepath.Dir(path))
	if b := filepath.Base(ws); b == ".vscode" || b == ".cursor" {
		ws = filepath.Dir(ws)
	}
	for i := range servers {
		servers[i].Workspace = ws
	}
	return servers, nil
}
