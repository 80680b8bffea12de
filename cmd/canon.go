package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

type canonOptions struct {
	Source      string
	Fingerprint bool
	Check       bool
	Normalize   bool
	Format      string
	Live        liveFlags
}

// NewCmdCanon builds `mcpctl canon`; runF, when set, receives the parsed
// options instead of runCanon (tests).
func NewCmdCanon(s *Streams, runF func(*canonOptions) error) *cobra.Command {
	opts := canonOptions{}
	c := &cobra.Command{
		Use:   "canon [SOURCE]",
		Short: "Print the canonical form (RFC 8785 + schema-aware set sorting) of a tool set",
		Long: `Print the canonical form of a tool set: RFC 8785 (JCS) key order, numbers
and string escaping, the arrays of required, type and enum sorted inside JSON
Schemas only, and the tools sorted by name. The canonical form exists to
compare documents; it is never served.

SOURCE is a file, a folder of per-tool snapshots, git:REV:PATH, stdio:COMMAND,
an http(s) URL, or - for standard input (the default).`,
		Example: `  mcpctl canon tools.lock.json
  mcpctl canon --fingerprint testdata/realdata/server-filesystem/2026.7.10.json
  mcpctl canon --check tools.lock.json     # exit 1 when not canonical
  curl -s … | mcpctl canon -`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Source = "-"
			if len(args) == 1 {
				opts.Source = args[0]
			}
			if opts.Format != "text" && opts.Format != "json" {
				return usageErrorf("--format must be text or json, got %q", opts.Format)
			}
			if opts.Check && opts.Fingerprint {
				return usageErrorf("--check and --fingerprint do not go together")
			}
			if opts.Source == "-" && s.InIsTerminal() {
				fmt.Fprintln(s.ErrOut, "mcpctl: reading the tool set from standard input (end with Ctrl-D; mcpctl canon --help for sources)")
			}
			if runF != nil {
				return runF(&opts)
			}
			return runCanon(c.Context(), s, opts)
		},
	}
	c.Flags().BoolVar(&opts.Fingerprint, "fingerprint", false, "print NAME  SHA256 per tool and the set's fingerprint instead of the canonical form")
	c.Flags().BoolVar(&opts.Check, "check", false, "exit 1 when the input is not already in canonical form, and say where it first differs")
	c.Flags().BoolVar(&opts.Normalize, "normalize", false, "also apply the semantic normalizations of docs/diff.md#normalization (default hints, const/enum, definitions/$defs, …)")
	c.Flags().StringVar(&opts.Format, "format", "text", "output format for --fingerprint: text or json")
	completeValues(c, "format", "text", "json")
	opts.Live.register(c.Flags())
	return c
}

func runCanon(ctx context.Context, s *Streams, opts canonOptions) error {
	// Read the bytes ourselves for files and stdin, so --check can compare
	// them with the canonical form.
	var raw []byte
	stdin := s.In
	if opts.Check {
		var err error
		raw, err = readSourceBytes(s, opts.Source)
		if err != nil {
			return err
		}
		stdin = bytes.NewReader(raw)
	}
	live, err := opts.Live.options(s, "")
	if err != nil {
		return err
	}
	set, err := source.Load(ctx, opts.Source, source.LoadOptions{Stdin: stdin, Live: live})
	err = opts.Live.finish(err)
	if err != nil {
		return err
	}
	if opts.Check && raw != nil && isFileOrStdin(opts.Source) {
		// Decode the bytes we read, not a second read of the file.
		if set, err = toolset.Decode(displayName(opts.Source), raw); err != nil {
			return err
		}
	}
	canonical := set.Canonical(opts.Normalize)
	switch {
	case opts.Fingerprint:
		fp := report.NewFingerprints(set, opts.Normalize)
		if opts.Format == "json" {
			return report.FingerprintsJSON(s.Out, fp)
		}
		return report.FingerprintsText(s.Out, fp)
	case opts.Check:
		got := bytes.TrimSuffix(raw, []byte("\n"))
		if bytes.Equal(got, canonical) {
			return nil
		}
		off := firstDifference(got, canonical)
		line, col := canon.LineCol(got, off)
		fmt.Fprintf(s.ErrOut, "%s:%d:%d (byte offset %d): not in canonical form\n  have: %s\n  want: %s\n",
			displayName(opts.Source), line, col, off, excerpt(got, off), excerpt(canonical, off))
		if isSnapshotLockfile(set, raw) {
			fmt.Fprintf(s.ErrOut, "  this is a lockfile as `mcpctl snapshot` writes it (indented, members in the server's order);\n"+
				"  `mcpctl snapshot --canonical` writes the canonical form, or compare canonical content with `mcpctl diff`\n")
		}
		return ErrFindings
	default:
		_, err := s.Out.Write(append(canonical, '\n'))
		return err
	}
}

// isSnapshotLockfile reports whether raw is exactly the lockfile
// `mcpctl snapshot` writes for set.
func isSnapshotLockfile(set *toolset.Set, raw []byte) bool {
	var b bytes.Buffer
	return toolset.WriteSnapshot(&b, set) == nil && bytes.Equal(b.Bytes(), raw)
}

func isFileOrStdin(src string) bool {
	if src == "-" {
		return true
	}
	fi, err := os.Stat(src)
	return err == nil && fi.Mode().IsRegular()
}

func displayName(src string) string {
	if src == "-" {
		return "<stdin>"
	}
	return src
}

// readSourceBytes reads a file or stdin for --check.
func readSourceBytes(s *Streams, src string) ([]byte, error) {
	if src == "-" {
		b, err := safefile.ReadAll(s.In, 0)
		if err != nil {
			return nil, &toolset.InputError{Source: "<stdin>", Offset: -1, Msg: err.Error(), Err: err}
		}
		return b, nil
	}
	if !isFileOrStdin(src) {
		return nil, usageErrorf("--check needs a file or - (standard input), not %q", src)
	}
	b, err := safefile.Read(src, safefile.Limits{})
	if err != nil {
		return nil, &toolset.InputError{Source: src, Offset: -1, Msg: err.Error(), Err: err}
	}
	return b, nil
}

func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// excerpt returns up to 40 bytes of b around off, quoted.
func excerpt(b []byte, off int) string {
	start := max(0, off-20)
	end := min(len(b), off+20)
	return fmt.Sprintf("%q", b[start:end])
}
