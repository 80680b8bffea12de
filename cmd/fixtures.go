package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/recording"
)

type convertOptions struct {
	Input  string
	To     string
	Redact []string
}

// NewCmdFixtures builds `mcpctl fixtures` and its subcommands.
func NewCmdFixtures(s *Streams) *cobra.Command {
	c := &cobra.Command{
		Use:   "fixtures",
		Short: "Work with recorded tool calls (fixtures)",
		Long: `Work with recorded tool calls: mcpctl JSON Lines, MCP JSON-RPC transcripts,
Anthropic Messages tool_use blocks, OpenAI Chat Completions tool_calls and
OpenAI Responses function_call items (the format of each file is detected
from its content).`,
	}
	c.AddCommand(NewCmdFixturesConvert(s, nil))
	return c
}

// NewCmdFixturesConvert builds `mcpctl fixtures convert`; runF, when set,
// receives the parsed options instead of runConvert (tests).
func NewCmdFixturesConvert(s *Streams, runF func(*convertOptions) error) *cobra.Command {
	opts := convertOptions{}
	c := &cobra.Command{
		Use:   "convert IN",
		Short: "Normalize recorded calls into mcpctl JSON Lines",
		Long: `Read the tool calls in IN (a file, a folder of files, or - for standard
input; any supported format) and write them to standard output as mcpctl
JSON Lines, one {"tool", "arguments", "generation"?, "expect"?} object per
line — the format replay reads and mcpctl keeps its own recordings in.

Members whose name looks like a secret are always written as "[redacted]",
by the rule serve --record applies (words such as token, password, secret,
api key, cookie, in any case, plural or with digits: passwords,
refresh_tokens, apiKeys, token2). --redact KEY,… redacts the value of every
argument member with one of these names too, at any depth; a KEY starting
with / is a JSON Pointer naming one position.`,
		Example: `  mcpctl fixtures convert transcript.jsonl --to jsonl > calls.jsonl
  mcpctl fixtures convert anthropic-logs/ --to jsonl --redact token,password`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Input = args[0]
			if opts.To != "jsonl" {
				return usageErrorf("--to must be jsonl, got %q", opts.To)
			}
			if _, err := recording.NewRedactor(opts.Redact); err != nil {
				return usageErrorf("--redact: %v", err)
			}
			if runF != nil {
				return runF(&opts)
			}
			return runConvert(c.Context(), s, opts)
		},
	}
	c.Flags().StringVar(&opts.To, "to", "jsonl", "output format: jsonl (mcpctl JSON Lines)")
	c.Flags().StringSliceVar(&opts.Redact, "redact", nil, "argument names (or JSON Pointers) whose values are replaced with \"[redacted]\", comma-separated")
	completeValues(c, "to", "jsonl")
	return c
}

func runConvert(ctx context.Context, s *Streams, opts convertOptions) error {
	calls, err := fixtures.Read(ctx, opts.Input, s.In)
	if err != nil {
		return err
	}
	r, err := recording.NewRedactor(opts.Redact)
	if err != nil {
		return usageErrorf("--redact: %v", err)
	}
	return fixtures.WriteJSONL(s.Out, calls, r)
}
