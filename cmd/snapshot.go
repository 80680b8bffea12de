package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/toolset"
)

func init() { extraCommands = append(extraCommands, newSnapshotCmd) }

type snapshotOptions struct {
	Source  string
	Command []string
	Output  string
	// Canonical writes the canonical form (as canon prints it) instead of
	// the indented lockfile, so `canon --check` accepts the file.
	Canonical bool
	Live      liveFlags
}

func newSnapshotCmd(s *Streams) *cobra.Command {
	opts := snapshotOptions{}
	c := &cobra.Command{
		Use:   "snapshot (SOURCE | -- COMMAND ARGS…) [-o FILE]",
		Short: "Write a tool set as a lockfile: {\"tools\": […]} sorted by name, each tool as received",
		Long: `Fetch the tools/list of a server (or read any other source) and write it as a
lockfile to commit: {"tools": […]} with the tools sorted by name and each
tool's JSON exactly as the server sent it (member order kept; only
indentation added). With --canonical it writes the canonical form instead
(as canon prints it), which canon --check accepts. Live servers are asked with protocol revision 2025-11-25
unless they only speak a newer one, and every page of tools/list is read.`,
		Example: `  mcpctl snapshot -o tools.lock.json -- npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp
  mcpctl snapshot https://example.com/mcp -o tools.lock.json
  mcpctl snapshot --header "Authorization: Bearer $(cat tok)" http://127.0.0.1:8931/mcp
  MCPCTL_SOURCE_TOKEN=… mcpctl snapshot --timeout 5m https://example.com/mcp
  mcpctl snapshot stdio:"./bin/server --flag" > tools.lock.json`,
		RunE: func(c *cobra.Command, args []string) error {
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
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the lockfile to FILE (atomically) instead of standard output")
	opts.Live.register(c.Flags())
	c.Flags().BoolVar(&opts.Canonical, "canonical", false, "write the canonical form (one line, as canon prints it; what canon --check expects) instead of the indented lockfile")
	return c
}

func runSnapshot(ctx context.Context, s *Streams, opts snapshotOptions) error {
	live, err := opts.Live.options(s, "")
	if err != nil {
		return err
	}
	var set *toolset.Set
	if opts.Command != nil {
		set, err = toolset.FetchCommand(ctx, opts.Command, live)
	} else {
		set, err = toolset.Load(ctx, opts.Source, toolset.LoadOptions{Stdin: s.In, Live: live})
	}
	err = opts.Live.finish(err)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if opts.Canonical {
		buf.Write(append(set.Canonical(false), '\n'))
	} else if err := toolset.WriteSnapshot(&buf, set); err != nil {
		return err
	}
	if opts.Output == "" {
		_, err := s.Out.Write(buf.Bytes())
		return err
	}
	if err := writeFileAtomic(opts.Output, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "wrote %s: %d tools\n", opts.Output, len(set.Tools))
	return nil
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// into place, so readers never see a partial lockfile. Errors are
// *fs.PathError naming path (never the temporary file).
func writeFileAtomic(path string, data []byte) error {
	if err := writeTempAndRename(path, data); err != nil {
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

func writeTempAndRename(path string, data []byte) error {
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
