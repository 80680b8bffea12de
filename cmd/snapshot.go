package cmd

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

type snapshotOptions struct {
	Source       string
	Command      []string
	Output       string
	ClientConfig string
	// Canonical writes the canonical form (as canon prints it) instead of
	// the indented lockfile, so `canon --check` accepts the file.
	Canonical bool
	Live      liveFlags
}

// NewCmdSnapshot builds `mcpctl snapshot`; runF, when set, receives the
// parsed options instead of runSnapshot or runSnapshotClientConfig (tests).
func NewCmdSnapshot(s *Streams, runF func(*snapshotOptions) error) *cobra.Command {
	opts := snapshotOptions{}
	c := &cobra.Command{
		Use:   "snapshot (SOURCE | -- COMMAND ARGS… | --client-config FILE -o DIR) [-o FILE]",
		Short: "Write a tool set as a lockfile: {\"tools\": […]} sorted by name, each tool as received",
		Long: `Fetch the tools/list of a server (or read any other source) and write it as a
lockfile to commit: {"tools": […]} with the tools sorted by name and each
tool's JSON exactly as the server sent it (member order kept; only
indentation added). A serve config or a lockfile as SOURCE also writes its
tools' facade blocks, as a "facades" member (tool name → block): the
contract lockfile that gate.baseline and mcpctl diff read. With --canonical
it writes the canonical form of the tools instead (as canon prints it, no
facades), which canon --check accepts. Live servers are asked with protocol
revision 2025-11-25 unless they only speak a newer one, and every page of
tools/list is read.

--client-config FILE reads an MCP client's configuration (Claude Desktop's
{"mcpServers": {NAME: {"command", "args", "env"}}}, the "url" entries of
remote servers, VS Code's {"servers": {…}}) and writes one lockfile per
server, DIR/NAME.lock.json. One server of such a file is the source
client-config:FILE#NAME for snapshot, lint, diff and canon.`,
		Example: `  mcpctl snapshot -o tools.lock.json -- npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp
  mcpctl snapshot https://example.com/mcp -o tools.lock.json
  mcpctl snapshot --header "Authorization: Bearer $(cat tok)" http://127.0.0.1:8931/mcp
  MCPCTL_SOURCE_TOKEN=… mcpctl snapshot --timeout 5m https://example.com/mcp
  mcpctl snapshot stdio:"./bin/server --flag" > tools.lock.json
  mcpctl snapshot --client-config ~/.config/Claude/claude_desktop_config.json -o locks/
  mcpctl lint client-config:.vscode/mcp.json#github`,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.ClientConfig != "" {
				if len(args) > 0 || opts.Output == "" {
					return usageErrorf("--client-config FILE takes no SOURCE and needs -o DIR (one lockfile per server)")
				}
				if runF != nil {
					return runF(&opts)
				}
				return runSnapshotClientConfig(c.Context(), s, opts)
			}
			if err := snapshotSource(c.ArgsLenAtDash(), args, &opts); err != nil {
				return err
			}
			if runF != nil {
				return runF(&opts)
			}
			return runSnapshot(c.Context(), s, opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the lockfile to FILE (atomically) instead of standard output; with --client-config, the folder for the lockfiles")
	c.Flags().StringVar(&opts.ClientConfig, "client-config", "", "snapshot every server of an MCP client's configuration FILE (mcpServers / servers) into -o DIR")
	opts.Live.register(c.Flags())
	c.Flags().BoolVar(&opts.Canonical, "canonical", false, "write the canonical form (one line, as canon prints it; what canon --check expects) instead of the indented lockfile")
	return c
}

// snapshotSource sets opts.Source, or opts.Command from the arguments
// after "--" (dash: cobra's ArgsLenAtDash, -1 without one).
func snapshotSource(dash int, args []string, opts *snapshotOptions) error {
	if dash >= 0 {
		if dash != 0 || len(args) == 0 {
			return usageErrorf("give either SOURCE or -- COMMAND ARGS…")
		}
		opts.Command = args
		return nil
	}
	if len(args) != 1 {
		return usageErrorf("snapshot takes one SOURCE (or -- COMMAND ARGS…), got %d arguments", len(args))
	}
	opts.Source = args[0]
	return nil
}

func runSnapshot(ctx context.Context, s *Streams, opts snapshotOptions) error {
	live, err := opts.Live.options(s, "")
	if err != nil {
		return err
	}
	var set *toolset.Set
	if opts.Command != nil {
		set, err = mcpclient.FetchCommand(ctx, opts.Command, live)
	} else {
		set, err = source.Load(ctx, opts.Source, source.LoadOptions{Stdin: s.In, Live: live})
	}
	err = opts.Live.finish(err)
	if err != nil {
		return err
	}
	var ff facade.File
	if opts.Source != "" {
		// A serve config or a lockfile: its facades are part of the contract.
		if ff, err = declaredFacades(opts.Source); err != nil {
			return err
		}
	}
	data, err := lockfileBytes(set, ff, opts.Canonical)
	if err != nil {
		return err
	}
	if opts.Output == "" {
		_, err := s.Out.Write(data)
		return err
	}
	if err := writeFileAtomic(opts.Output, data); err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "wrote %s: %d tools\n", opts.Output, len(set.Tools))
	return nil
}

// runSnapshotClientConfig snapshots every server of a client configuration
// into opts.Output/NAME.lock.json. A server that fails is reported and the
// others still run; the first failure is returned.
func runSnapshotClientConfig(ctx context.Context, s *Streams, opts snapshotOptions) error {
	if _, err := opts.Live.options(s, ""); err != nil { // bad flags: said once, not per server
		return err
	}
	servers, err := source.ReadClientConfig(opts.ClientConfig, "")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Output, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", opts.Output, err)
	}
	var first error
	// lockfile name in lower case (file systems that ignore case) → server
	files := map[string]string{}
	for _, cs := range servers {
		name := lockfileName(cs.Name)
		if other, ok := files[strings.ToLower(name)]; ok {
			err := usageErrorf("server %q: its lockfile %s would overwrite server %q's; rename one of them", cs.Name, name, other)
			fmt.Fprintf(s.ErrOut, "mcpctl: %v\n", err)
			first = cmp.Or(first, err)
			continue
		}
		files[strings.ToLower(name)] = cs.Name
		path, n, err := snapshotClientServer(ctx, s, opts, cs)
		if err != nil {
			fmt.Fprintf(s.ErrOut, "mcpctl: server %q: %v\n", cs.Name, err)
			first = cmp.Or(first, err)
			continue
		}
		fmt.Fprintf(s.ErrOut, "wrote %s: %d tools\n", path, n)
	}
	return first
}

func snapshotClientServer(ctx context.Context, s *Streams, opts snapshotOptions, cs toolset.ClientServer) (string, int, error) {
	live, err := opts.Live.options(s, cs.Name)
	if err != nil {
		return "", 0, err
	}
	set, err := mcpclient.FetchClientServer(ctx, opts.ClientConfig, cs, live)
	if err = opts.Live.finish(err); err != nil {
		return "", 0, err
	}
	data, err := lockfileBytes(set, nil, opts.Canonical)
	if err != nil {
		return "", 0, err
	}
	path := filepath.Join(opts.Output, lockfileName(cs.Name)) // unique: see runSnapshotClientConfig
	if err := writeFileAtomic(path, data); err != nil {
		return "", 0, err
	}
	return path, len(set.Tools), nil
}

// lockfileBytes renders set as snapshot writes it: the indented lockfile
// (with ff, its facades), or
// with canonical the canonical form canon prints (and canon --check
// accepts).
func lockfileBytes(set *toolset.Set, ff facade.File, canonical bool) ([]byte, error) {
	if canonical {
		return append(set.Canonical(false), '\n'), nil
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, set, ff); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// lockfileName makes a server name a file name: NAME.lock.json with every
// byte other than letters, digits, '.', '_' and '-' replaced by '_', and
// "_" before a name Windows keeps for a device (CON, NUL, COM1, …, in any
// case and with any extension).
func lockfileName(name string) string {
	b := []byte(strings.TrimLeft(name, "."))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		b = []byte("server")
	}
	if stem, _, _ := strings.Cut(string(b), "."); windowsDevice.MatchString(stem) {
		b = append([]byte("_"), b...)
	}
	return string(b) + ".lock.json"
}

// windowsDevice matches the file names Windows reserves for devices.
var windowsDevice = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])$`)

// writeFileAtomic writes data to a temporary file beside path, syncs it and
// renames it into place (durable.WriteFile), so readers never see a
// partial lockfile. Errors are *fs.PathError naming path (never the
// temporary file).
func writeFileAtomic(path string, data []byte) error {
	if err := durable.WriteFile(path, data, 0o644); err != nil {
		var pe *fs.PathError
		var le *os.LinkError
		switch {
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &le):
			err = le.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (folder %s does not exist)", err, filepath.Dir(path))
		}
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}
