// Package cmd holds mcpctl's cobra commands: each parses flags into an
// options struct, calls the domain packages, picks a renderer and maps errors
// to exit codes. Main is the whole CLI as a function, so tests run it
// in-process.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/internal/mcpclient"
	"github.com/spf13/cobra"
)

// Main runs mcpctl with args (without the program name) and returns the exit
// code (see `mcpctl help exit-codes`).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, &Streams{In: stdin, Out: stdout, ErrOut: stderr})
}

func run(ctx context.Context, args []string, s *Streams) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(s.ErrOut, "mcpctl: internal error (a bug, please report it): %v\n", r)
			code = ExitInternal
		}
	}()
	err := execute(ctx, newRootCmd(s), args)
	if err == nil {
		return ExitOK
	}
	code = exitCode(err)
	if !errors.Is(err, ErrFindings) {
		fmt.Fprintf(s.ErrOut, "mcpctl: %v\n", err)
	}
	if errors.Is(err, mcpclient.ErrCredentials) {
		fmt.Fprintf(s.ErrOut, "mcpctl: send credentials with --header 'Authorization: Bearer …', --token-file FILE or $%s\n", SourceTokenEnv)
	}
	return code
}

// execute runs root with args. Cobra's own errors come typed as ErrUsage:
// flag errors through the root's flag error function, argument counts
// through wrapArgs, an unknown command through the root's Args (unknownCommand).
func execute(ctx context.Context, root *cobra.Command, args []string) error {
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// unknownCommand is the root's argument check: any argument left once cobra
// has looked for a subcommand is an unknown command. Without it cobra
// reports that case with an untyped error of its own from Find, before
// any Args check that wrapArgs could type.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return errors.New(msg) // typed ErrUsage by wrapArgs, like every Args check
}

func newRootCmd(s *Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "mcpctl",
		Short: "Check, compare, replay and serve MCP tool contracts",
		Long: `mcpctl works on the tool contract an MCP server advertises in tools/list:
canonical forms and fingerprints (canon), change classification with proof
(diff), replay of recorded calls (replay) and a hot-reloading gated server
(serve).`,
		Version:                    versionString(),
		SilenceUsage:               true,
		SilenceErrors:              true,
		Args:                       unknownCommand,
		SuggestionsMinimumDistance: 2,
		// Runnable, so that cobra checks Args: alone, mcpctl prints its help.
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetVersionTemplate("{{.Version}}\n")
	s.Color = "auto"
	root.PersistentFlags().Var(enumValue{&s.Color, colorValues}, "color", "style the text output: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR or CLICOLOR_FORCE force it), always or never")
	completeValues(root, "color", colorValues...)
	// Every command, by name (help lists them sorted).
	root.AddCommand(
		NewCmdApprove(s, nil),
		NewCmdCanon(s, nil),
		NewCmdDiff(s, nil),
		NewCmdFixtures(s),
		NewCmdLint(s, nil),
		NewCmdReject(s, nil),
		NewCmdReplay(s, nil),
		NewCmdRules(s, nil),
		NewCmdServe(s, nil),
		NewCmdSnapshot(s, nil),
		NewCmdStatus(s, nil),
		NewCmdVersion(s, nil),
	)
	root.AddCommand(&cobra.Command{
		Use:   "exit-codes",
		Short: "What mcpctl's exit codes mean",
		Long:  exitCodesHelp,
	})
	typeUsageErrors(root)
	return root
}

// typeUsageErrors makes cobra's own errors for c and every command below
// it ErrUsage: flag errors (unknown, malformed; the function is inherited
// by subcommands) and positional-argument errors (wrapArgs).
func typeUsageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return fmt.Errorf("%w: %v", ErrUsage, err) })
	wrapArgs(c)
}

func wrapArgs(c *cobra.Command) {
	if c.Args != nil {
		orig := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := orig(cmd, args); err != nil {
				return fmt.Errorf("%w: %v", ErrUsage, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapArgs(sub)
	}
}
