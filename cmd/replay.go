package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/source"
)

type replayOptions struct {
	Fixtures string
	Against  string
	Facades  string
	FailOn   string
	Format   string
	Live     string
	Yes      bool
	Conn     liveFlags
}

// NewCmdReplay builds `mcpctl replay`; runF, when set, receives the parsed
// options instead of runReplay (tests).
func NewCmdReplay(s *Streams, runF func(*replayOptions) error) *cobra.Command {
	opts := replayOptions{}
	c := &cobra.Command{
		Use:   "replay FIXTURES --against SOURCE",
		Short: "Replay recorded tool calls against a tool set",
		Long: `Replay recorded tool calls against a tool set and say, per call, whether the
new contract accepts it as sent (accepted), after the declared facade
(translated, with the translated call), or not at all (rejected, with the
message serve would return: each offending field by JSON Pointer, what was
expected and a valid example), or does not know the tool (unknown-tool).

FIXTURES is a file, a folder (every file in it) or - for standard input, in
any supported format, detected per file: mcpctl JSON Lines, MCP JSON-RPC
transcripts, Anthropic Messages, OpenAI Chat Completions and Responses.
SOURCE is any tool-set source, as for diff. --facades takes a facade file
(tool name → facade block, YAML or JSON) or a serve config; without it, a
serve config given as SOURCE brings its own facades. A JSON Lines file
whose last line is cut short (no newline at its end and not whole JSON: a
recording interrupted by a full disk or a crash) replays its whole lines
with a warning on standard error; a broken line anywhere else is bad input.

--live SOURCE also sends every call (translated when translated) to a
running server (stdio:COMMAND ARGS… or an http(s) URL) and records whether
it answered with a result, an isError result or a protocol error. Calls can
have side effects: the calls are listed first and sent only with --yes or
after confirming on a terminal.

Exit codes: 0 when no call reaches --fail-on, 1 when one does (rejected and
unknown-tool by default; translated too with --fail-on translated; a call
with a recorded "expect" fails only when its outcome does not satisfy it:
accepted and translated satisfy each other, since the call still works,
and a recorded rejected or unknown-tool call that stays so passes), 2 for
bad input or usage, 3 for a bug, 4 when the environment refuses.`,
		Example: `  mcpctl replay calls.jsonl --against tools.lock.json
  mcpctl replay fixtures/ --against v2.json --facades facades.yaml --format markdown
  mcpctl replay calls.jsonl --against tools.lock.json --live stdio:./server --yes`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Fixtures = args[0]
			if runF != nil {
				return runF(&opts)
			}
			return runReplay(c.Context(), s, opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Against, "against", "", "the tool set to replay against (required): a file, folder, git:REV:PATH, stdio:COMMAND or http(s) URL")
	f.StringVar(&opts.Facades, "facades", "", "facade file (YAML or JSON: tool name → facade block, or a serve config)")
	f.StringVar(&opts.FailOn, "fail-on", "rejected", "exit 1 when a call is: rejected (or unknown-tool), translated (or worse), or never")
	f.StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(report.ReplayFormats(), ", "))
	f.StringVar(&opts.Live, "live", "", "also send every call to this running server (stdio:COMMAND ARGS… or http(s) URL)")
	f.BoolVar(&opts.Yes, "yes", false, "with --live: send without asking (calls can have side effects)")
	opts.Conn.register(f)
	completeValues(c, "format", report.ReplayFormats()...)
	completeValues(c, "fail-on", "rejected", "translated", "never")
	return c
}

func runReplay(ctx context.Context, s *Streams, opts replayOptions) error {
	failOn, err := checkReplayUsage(opts)
	if err != nil {
		return err
	}
	r, err := newReplayer(ctx, s, opts)
	if err != nil {
		return err
	}
	// A recording cut short (a full disk, a crash) keeps its whole lines.
	r.Warn = func(err error) { fmt.Fprintf(s.ErrOut, "mcpctl: warning: %v\n", err) }
	rep, err := r.RunPath(ctx, opts.Fixtures, s.In)
	if err != nil {
		return err
	}
	if len(rep.Calls) == 0 {
		fmt.Fprintf(s.ErrOut, "mcpctl: warning: %s holds no recorded tool calls; nothing was replayed\n", opts.Fixtures)
	}
	if opts.Live != "" {
		if err := replayLive(ctx, s, opts, rep); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.RenderReplay(&buf, opts.Format, rep, failOn, opts.Format == "text" && s.ColorOut()); err != nil {
		return fmt.Errorf("render %s: %w", opts.Format, err)
	}
	if _, err := s.Out.Write(buf.Bytes()); err != nil {
		return err
	}
	if rep.Fails(failOn) {
		return ErrFindings
	}
	return nil
}

// checkReplayUsage refuses flags that do not fit (a usage error) and
// returns --fail-on.
func checkReplayUsage(opts replayOptions) (fixtures.FailOn, error) {
	failOn, err := fixtures.ParseFailOn(opts.FailOn)
	if err != nil {
		return failOn, usageErrorf("%v", err)
	}
	if !contains(report.ReplayFormats(), opts.Format) {
		return failOn, usageErrorf("--format must be one of %s, got %q", strings.Join(report.ReplayFormats(), ", "), opts.Format)
	}
	if opts.Against == "" {
		return failOn, usageErrorf("--against SOURCE is required")
	}
	if opts.Fixtures == "-" && opts.Against == "-" {
		return failOn, usageErrorf("only one of FIXTURES and --against can be - (standard input)")
	}
	return failOn, nil
}

// newReplayer loads --facades and the --against source (whose own
// facades serve when --facades is not given) into a replayer.
func newReplayer(ctx context.Context, s *Streams, opts replayOptions) (*fixtures.Replayer, error) {
	var facades facade.File
	var err error
	if opts.Facades != "" {
		if facades, err = facade.LoadFile(opts.Facades); err != nil {
			return nil, badInput{err}
		}
	}
	live, err := opts.Conn.options(s, "")
	if err != nil {
		return nil, err
	}
	set, err := source.Load(ctx, opts.Against, source.LoadOptions{Stdin: s.In, Live: live})
	if err = opts.Conn.finish(err); err != nil {
		return nil, err
	}
	if opts.Facades == "" && opts.Against != "-" {
		// A serve config or a contract lockfile carries its tools' facades.
		if facades, err = declaredFacades(opts.Against); err != nil {
			return nil, badInput{err}
		}
	}
	r, err := fixtures.NewReplayer(set, facades)
	if err != nil {
		return nil, badInput{fmt.Errorf("--facades %s: %w", opts.Facades, err)}
	}
	return r, nil
}

// replayLive lists the calls it will send on stderr, asks for confirmation
// (unless --yes), then sends them.
func replayLive(ctx context.Context, s *Streams, opts replayOptions, rep *fixtures.Report) error {
	fmt.Fprintf(s.ErrOut, "mcpctl: --live will send %d call(s) to %s; calls can have side effects:\n", len(rep.Calls), opts.Live)
	for i := range rep.Calls {
		tool, args := rep.Calls[i].Sent()
		b, _ := json.Marshal(args)
		fmt.Fprintf(s.ErrOut, "  %s  %s %s\n", rep.Calls[i].Source, tool, b)
	}
	if !opts.Yes {
		if !s.InIsTerminal() {
			return usageErrorf("--live sends calls that can have side effects: pass --yes to send them (standard input is not a terminal to ask on)")
		}
		fmt.Fprint(s.ErrOut, "Send these calls? [y/N] ")
		answer, _ := bufio.NewReader(s.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return usageErrorf("--live: not confirmed; nothing sent")
		}
	}
	lo, err := opts.Conn.fixturesOptions(s)
	if err != nil {
		return err
	}
	live, err := fixtures.ConnectLive(ctx, opts.Live, lo)
	if err != nil {
		return badInput{fmt.Errorf("--live: %w", opts.Conn.finish(err))}
	}
	defer live.Close()
	return opts.Conn.finish(fixtures.SendAll(ctx, live, rep))
}
