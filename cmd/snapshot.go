package cmd

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/toolset"
)

func init() { extraCommands = append(extraCommands, newSnapshotCmd) }

type snapshotOptions struct {
	Source       string
	Command      []string
	Output       string
	ClientConfig string
}

func newSnapshotCmd(s *Streams) *cobra.Command {
	opts := snapshotOptions{}
	c := &cobra.Command{
		Use:   "snapshot (SOURCE | -- COMMAND ARGS… | --client-config FILE -o DIR) [-o FILE]",
		Short: "Write a tool set as a lockfile: {\"tools\": […]} sorted by name, each tool as received",
		Long: `Fetch the tools/list of a server (or read any other source) and write it as a
lockfile to commit: {"tools": […]} with the tools sorted by name and each
tool's JSON exactly as the server sent it (member order kept; only
indentation added). Live servers are asked with protocol revision 2025-11-25
unless they only speak a newer one, and every page of tools/list is read.

--client-config FILE reads an MCP client's configuration (Claude Desktop's
{"mcpServers": {NAME: {"command", "args", "env"}}}, the "url" entries of
remote servers, VS Code's {"servers": {…}}) and writes one lockfile per
server, DIR/NAME.lock.json. One server of such a file is the source
client-config:FILE#NAME for snapshot, lint, diff and canon.`,
		Example: `  mcpctl snapshot -o tools.lock.json -- npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp
  mcpctl snapshot https://example.com/mcp -o tools.lock.json
  mcpctl snapshot stdio:"./bin/server --flag" > tools.lock.json
  mcpctl snapshot --client-config ~/.config/Claude/claude_desktop_config.json -o locks/
  mcpctl lint client-config:.vscode/mcp.json#github`,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.ClientConfig != "" {
				if len(args) > 0 || opts.Output == "" {
					return usageErrorf("--client-config FILE takes no SOURCE and needs -o DIR (one lockfile per server)")
				}
				return runSnapshotClientConfig(c.Context(), s, opts)
			}
			if dash := c.ArgsLenAtDash(); dash >= 0 {
				if dash != 0 || len(args) == 0 {
					return usageErrorf("give either SOURCE or -- COMMAND ARGS…")
				}
				opts.Command = args
			} else {
				if len(args) != 1 {
					return usageErrorf("snapshot takes one SOURCE (or -- COMMAND ARGS…), got %d arguments", len(args))
				}
				opts.Source = args[0]
			}
			return runSnapshot(c.Context(), s, opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the lockfile to FILE (atomically) instead of standard output; with --client-config, the folder for the lockfiles")
	c.Flags().StringVar(&opts.ClientConfig, "client-config", "", "snapshot every server of an MCP client's configuration FILE (mcpServers / servers) into -o DIR")
	return c
}

func runSnapshot(ctx context.Context, s *Streams, opts snapshotOptions) error {
	live := toolset.LiveOptions{Stderr: s.ErrOut}
	var set *toolset.Set
	var err error
	if opts.Command != nil {
		set, err = toolset.FetchCommand(ctx, opts.Command, live)
	} else {
		set, err = toolset.Load(ctx, opts.Source, toolset.LoadOptions{Stdin: s.In, Live: live})
	}
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := toolset.WriteSnapshot(&buf, set); err != nil {
		return err
	}
	if opts.Output == "" {
		_, err := s.Out.Write(buf.Bytes())
		return err
	}
	if err := writeFileAtomic(opts.Output, buf.Bytes()); err != nil {
		return fmt.Errorf("write %s: %w", opts.Output, err)
	}
	fmt.Fprintf(s.ErrOut, "wrote %s: %d tools\n", opts.Output, len(set.Tools))
	return nil
}

// runSnapshotClientConfig snapshots every server of a client configuration
// into opts.Output/NAME.lock.json. A server that fails is reported and the
// others still run; the first failure is returned.
func runSnapshotClientConfig(ctx context.Context, s *Streams, opts snapshotOptions) error {
	servers, err := toolset.ReadClientConfig(opts.ClientConfig, "")
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
	set, err := toolset.FetchClientServer(ctx, opts.ClientConfig, cs, toolset.LiveOptions{Stderr: s.ErrOut})
	if err != nil {
		return "", 0, err
	}
	var buf bytes.Buffer
	if err := toolset.WriteSnapshot(&buf, set); err != nil {
		return "", 0, err
	}
	path := filepath.Join(opts.Output, lockfileName(cs.Name)) // unique: see runSnapshotClientConfig
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return "", 0, fmt.Errorf("write %s: %w", path, err)
	}
	return path, len(set.Tools), nil
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

// writeFileAtomic writes data to a temporary file beside path and renames it
// into place, so readers never see a partial lockfile.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
