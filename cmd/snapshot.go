package cmd

import (
	"bytes"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/toolset"
)

func init() { extraCommands = append(extraCommands, newSnapshotCmd) }

type snapshotOptions struct {
	Source  string
	Command []string
	Output  string
}

func newSnapshotCmd(s *Streams) *cobra.Command {
	opts := snapshotOptions{}
	c := &cobra.Command{
		Use:   "snapshot (SOURCE | -- COMMAND ARGS…) [-o FILE]",
		Short: "Write a tool set as a lockfile: {\"tools\": […]} sorted by name, each tool as received",
		Long: `Fetch the tools/list of a server (or read any other source) and write it as a
lockfile to commit: {"tools": […]} with the tools sorted by name and each
tool's JSON exactly as the server sent it (member order kept; only
indentation added). A serve config or a lockfile as SOURCE also writes its
tools' facade blocks, as a "facades" member (tool name → block): the
contract lockfile that gate.baseline and mcpctl diff read. Live servers are asked with protocol revision 2025-11-25
unless they only speak a newer one, and every page of tools/list is read.`,
		Example: `  mcpctl snapshot -o tools.lock.json -- npx -y @modelcontextprotocol/server-filesystem@2026.8.31 /tmp
  mcpctl snapshot https://example.com/mcp -o tools.lock.json
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
	var ff facade.File
	if opts.Source != "" {
		// A serve config or a lockfile: its facades are part of the contract.
		if ff, err = declaredFacades(opts.Source); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, set, ff); err != nil {
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

// writeFileAtomic writes data to a temporary file beside path, syncs it and
// renames it into place (durable.WriteFile), so readers never see a
// partial lockfile.
func writeFileAtomic(path string, data []byte) error { return durable.WriteFile(path, data, 0o644) }
