package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/toolset"
)

func init() { extraCommands = append(extraCommands, newLintCmd) }

type lintOptions struct {
	Source  string
	Profile string
	Format  string
	Live    liveFlags
}

func newLintCmd(s *Streams) *cobra.Command {
	opts := lintOptions{}
	c := &cobra.Command{
		Use:   "lint SOURCE",
		Short: "Check a tool set for MCP validity (errors) and client compatibility (warnings)",
		Long: `Check a tool set against what the MCP specification requires of a tool
(errors: name syntax and uniqueness, inputSchema present and an object schema,
outputSchema an object schema, schemas that compile, local $refs that resolve)
and what real clients and model APIs reject (warnings: long names, names with
. or /, names that collide once sanitized, root anyOf/oneOf/allOf, a $schema
other than 2020-12; with --profile strict, object schemas without
additionalProperties: false).

Exit code 1 when there is an error; warnings alone exit 0.`,
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
			return runLint(c.Context(), s, opts)
		},
	}
	c.Flags().StringVar(&opts.Profile, "profile", lint.ProfileDefault, "rule profile: default or strict")
	c.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	opts.Live.register(c.Flags())
	return c
}

func runLint(ctx context.Context, s *Streams, opts lintOptions) error {
	live, err := opts.Live.options(s, "")
	if err != nil {
		return err
	}
	set, err := toolset.Load(ctx, opts.Source, toolset.LoadOptions{Stdin: s.In, Live: live})
	err = opts.Live.finish(err)
	if err != nil {
		return err
	}
	findings := lint.Check(set, lint.Options{Profile: opts.Profile})
	errs, warns := 0, 0
	for _, f := range findings {
		if f.Severity == lint.SeverityError {
			errs++
		} else {
			warns++
		}
	}
	if opts.Format == "json" {
		out := struct {
			Source   string         `json:"source"`
			Profile  string         `json:"profile"`
			Tools    int            `json:"tools"`
			Counts   map[string]int `json:"counts"`
			Findings []lint.Finding `json:"findings"`
		}{set.Source, opts.Profile, len(set.Tools), map[string]int{"error": errs, "warning": warns}, findings}
		if out.Findings == nil {
			out.Findings = []lint.Finding{}
		}
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else if err := writeLintText(s.Out, set, findings, errs, warns); err != nil {
		return err
	}
	if errs > 0 {
		return ErrFindings
	}
	return nil
}

func writeLintText(w io.Writer, set *toolset.Set, findings []lint.Finding, errs, warns int) error {
	for _, f := range findings {
		ptr := f.Pointer
		if ptr == "" {
			ptr = "(tool)"
		}
		if _, err := fmt.Fprintf(w, "%s: %s: tool %q %s: %s [%s]\n", set.Source, f.Severity, f.Tool, ptr, f.Message, f.Rule); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s: %s, %s, %s\n", set.Source, count(len(set.Tools), "tool"), count(errs, "error"), count(warns, "warning"))
	return err
}

// count writes n with the noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
