package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/toolset"
)

// LoadOptions tunes Load. The zero value reads files relative to the working
// directory and has no stdin.
type LoadOptions struct {
	// Stdin is read for the source "-".
	Stdin io.Reader
	// Dir resolves relative paths and is where git runs; "" means the
	// working directory.
	Dir string
	// Live configures sources that are running servers.
	Live mcpclient.LiveOptions
}

// Load reads a tool set from any source of docs/diff.md#inputs:
//
//   - "-": standard input;
//   - "git:REV:PATH": the file PATH as it was at git revision REV (read with
//     `git show REV:PATH`, no shell);
//   - "stdio:COMMAND ARGS…": a server started as a subprocess (the rest of the
//     string split into words as a POSIX shell would, never run by a shell);
//   - "http://…", "https://…": a streamable HTTP server;
//   - "client-config:FILE#NAME": the server NAME of an MCP client's
//     configuration file (see toolset.DecodeClientConfig);
//   - a folder: every *.json and *.snap file in it, one tool object each;
//   - a file: a serve config (IsServeConfig) or a discovery document (see
//     toolset.Decode).
//
// Errors about the input wrap toolset.ErrInput (most are *toolset.InputError).
func Load(ctx context.Context, source string, opts LoadOptions) (*toolset.Set, error) {
	switch {
	case source == "-":
		if opts.Stdin == nil {
			return nil, &toolset.InputError{Source: "<stdin>", Offset: -1, Msg: "no standard input"}
		}
		data, err := safefile.ReadAll(opts.Stdin, 0)
		if err != nil {
			return nil, &toolset.InputError{Source: "<stdin>", Offset: -1, Msg: err.Error(), Err: err}
		}
		if IsServeConfig("", data) {
			return decodeServeConfig("<stdin>", data, nil)
		}
		return toolset.Decode("<stdin>", data)
	case strings.HasPrefix(source, "git:"):
		data, err := gitShow(ctx, opts.Dir, source)
		if err != nil {
			return nil, err
		}
		if IsServeConfig(source, data) {
			return decodeGitServeConfig(ctx, opts.Dir, source, data)
		}
		return toolset.Decode(source, data)
	case strings.HasPrefix(source, toolset.ClientConfigPrefix):
		return loadClientConfig(ctx, source, opts)
	case strings.HasPrefix(source, "stdio:"), strings.HasPrefix(source, "http://"), strings.HasPrefix(source, "https://"):
		return mcpclient.LoadLive(ctx, source, opts.Live)
	}
	path := source
	if opts.Dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(opts.Dir, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", safefile.UnwrapPath(err)), Err: err}
	}
	if fi.IsDir() {
		return LoadDir(source, path)
	}
	data, err := safefile.Read(path, safefile.Limits{})
	if err != nil {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", safefile.UnwrapPath(err)), Err: err}
	}
	if IsServeConfig(path, data) {
		return decodeServeConfig(path, data, safefile.Under(filepath.Dir(path), safefile.Limits{}))
	}
	return toolset.Decode(source, data)
}

// LoadDir reads a folder of per-tool snapshot files (*.json or *.snap, one
// tool object each, as github-mcp-server keeps in __toolsnaps__). Files are
// read in name order; other files are ignored; an empty folder is an error.
func LoadDir(source, dir string) (*toolset.Set, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("cannot read folder: %v", safefile.UnwrapPath(err)), Err: err}
	}
	var tools []*toolset.Tool
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".snap")) {
			continue
		}
		file := filepath.Join(source, name)
		data, err := safefile.Read(filepath.Join(dir, name), safefile.Limits{})
		if err != nil {
			return nil, &toolset.InputError{Source: file, Offset: -1, Msg: fmt.Sprintf("cannot read: %v", safefile.UnwrapPath(err)), Err: err}
		}
		t, err := toolset.DecodeTool(file, data, len(tools))
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	if len(tools) == 0 {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "folder holds no *.json or *.snap tool files"}
	}
	set, err := toolset.NewSet(source, tools)
	if err != nil {
		var ie *toolset.InputError
		if errors.As(err, &ie) {
			// Name the files rather than positions in a list: offsets in
			// different files mean nothing together.
			ie.Msg = fmt.Sprintf("duplicate tool name %q in files %s", ie.Tool, strings.Join(filesNamed(tools, ie.Tool), ", "))
			ie.Offset, ie.Line, ie.Col = -1, 0, 0
		}
		return nil, err
	}
	return set, nil
}

func filesNamed(tools []*toolset.Tool, name string) []string {
	var files []string
	for _, t := range tools {
		if t.Name == name {
			files = append(files, t.Source)
		}
	}
	slices.Sort(files)
	return files
}

// gitShow reads "git:REV:PATH" with `git show REV:PATH`. PATH is taken
// relative to the current directory inside the repository ("./" is added
// unless it is already relative-explicit), as a user types it. A REV
// starting with "-" is refused (git would read it as an option).
func gitShow(ctx context.Context, dir, source string) ([]byte, error) {
	rest := strings.TrimPrefix(source, "git:")
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "want git:REV:PATH, e.g. git:origin/main:tools.lock.json"}
	}
	rev, path := rest[:i], rest[i+1:]
	if strings.HasPrefix(rev, "-") {
		// git would take it for an option (--output=FILE writes a file).
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: fmt.Sprintf("the revision %q starts with \"-\"; want git:REV:PATH, e.g. git:origin/main:tools.lock.json", rev)}
	}
	if !strings.HasPrefix(path, "./") && !strings.HasPrefix(path, "../") && !strings.HasPrefix(path, "/") {
		path = "./" + path
	}
	cmd := exec.CommandContext(ctx, "git", "show", rev+":"+path)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, &toolset.InputError{Source: source, Offset: -1, Msg: "git show " + rev + ":" + path + ": " + msg, Err: err}
	}
	return out, nil
}
