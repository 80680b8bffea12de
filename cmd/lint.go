package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/source"
)

type lintOptions struct {
	Source  string
	Profile string
	Format  string
	Config  string
	Live    liveFlags
}

// NewCmdLint builds `mcpctl lint`; runF, when set, receives the parsed
// options instead of runLint (tests).
func NewCmdLint(s *Streams, runF func(*lintOptions) error) *cobra.Command {
	opts := lintOptions{}
	c := &cobra.Command{
		Use:   "lint SOURCE",
		Short: "Check a tool set for MCP validity (errors) and client compatibility (warnings)",
		Long: `Check a tool set against what the MCP specification requires of a tool
(errors: name syntax and uniqueness, inputSchema present and an object schema,
outputSchema an object schema, schemas that compile, local $refs that resolve)
and what real clients and model APIs reject (warnings: long names, names with
. or /, names equal ignoring case (MCP names are case-sensitive, but clients
that fold case confuse them), names that collide once sanitized, root
anyOf/oneOf/allOf, a $schema
other than 2020-12; with --profile strict, object schemas without
additionalProperties: false).

Findings that differ only in their tool are written once, with the list of
tools; each finding says where it was written (FILE:LINE:COL) when the
source is a file, a serve config's YAML included.

The lint: section of .mcpctl.yaml (looked for in the working directory and
its parents, or --config) sets rule levels and ignores:

  lint:
    rules:
      schema-draft: off            # error, warning or off
    ignore:
      - rule: schema-draft
        tool: "*"                  # a tool name, or * for every tool
        path: /outputSchema        # optional JSON Pointer prefix
        reason: zod writes draft-07 and our clients accept it
        expires: 2027-01-31        # optional

Exit code 1 when there is an error that is not ignored; warnings alone
exit 0.`,
		Example: `  mcpctl lint tools.lock.json
  mcpctl lint --profile strict --format json stdio:"npx -y @modelcontextprotocol/server-everything"`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Source = args[0]
			if opts.Format != "text" && opts.Format != "json" {
				return usageErrorf("--format must be text or json, got %q", opts.Format)
			}
			if err := (lint.Options{Profile: opts.Profile}).Validate(); err != nil {
				return usageErrorf("%v", err)
			}
			if runF != nil {
				return runF(&opts)
			}
			return runLint(c.Context(), s, opts)
		},
	}
	c.Flags().StringVar(&opts.Profile, "profile", lint.ProfileDefault, "rule profile: default or strict")
	c.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	c.Flags().StringVar(&opts.Config, "config", "", "configuration file (default: .mcpctl.yaml in the working directory or a parent)")
	opts.Live.register(c.Flags())
	completeValues(c, "profile", lint.ProfileDefault, lint.ProfileStrict)
	completeValues(c, "format", "text", "json")
	return c
}

func runLint(ctx context.Context, s *Streams, opts lintOptions) error {
	lo := lint.Options{Profile: opts.Profile}
	cfg, err := loadConfig(diffOptions{Config: opts.Config})
	if err != nil {
		return err
	}
	if cfg != nil {
		cfg.Lint.Apply(&lo)
		for _, w := range cfg.Warnings {
			fmt.Fprintf(s.ErrOut, "mcpctl: warning: %s\n", w)
		}
	}
	live, err := opts.Live.options(s, "")
	if err != nil {
		return err
	}
	set, err := source.Load(ctx, opts.Source, source.LoadOptions{Stdin: s.In, Live: live})
	err = opts.Live.finish(err)
	if err != nil {
		return err
	}
	findings := lint.Check(set, lo)
	if opts.Format == "json" {
		err = report.LintJSON(s.Out, report.NewLintReport(set.Source, opts.Profile, len(set.Tools), findings))
	} else {
		err = report.LintText(s.Out, set.Source, len(set.Tools), findings, report.Options{Color: s.ColorOut()})
	}
	if err != nil {
		return err
	}
	if lint.HasErrors(findings) {
		return ErrFindings
	}
	return nil
}
