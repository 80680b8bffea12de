package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/source"
	"github.com/mcpctl/mcpctl/toolset"
)

type diffOptions struct {
	Old, New          string
	FailOn            string
	Format            string
	StrictOpenContent bool
	Facades           string
	// SuggestFacades is --suggest-facades FILE: where to write the merged
	// suggestions ("" = nowhere).
	SuggestFacades string
	// Usage is --usage FIXTURES; UsedOnly is --fail-on-used-only.
	Usage    string
	UsedOnly bool
	Verify   int
	Config   string
	// Compatibility is --compatibility: backward, forward, full or none.
	Compatibility string
	// Dir is where .mcpctl.yaml is looked for; "" means the working
	// directory.
	Dir string
	// Now judges ignore expiries and sunsets; zero means time.Now().
	Now  time.Time
	Live liveFlags
}

// NewCmdDiff builds `mcpctl diff`; runF, when set, receives the parsed
// options instead of runDiff (tests).
func NewCmdDiff(s *Streams, runF func(*diffOptions) error) *cobra.Command {
	opts := diffOptions{}
	c := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Classify the changes between two tool sets as safe, facade or breaking",
		Long: `Compare two tool sets and classify every change as safe, facade (old calls
fail but a declared translation carries them) or breaking, with a witness
(arguments the old contract accepts and the new one rejects) and, for facade
findings, the facade that would carry old calls.

OLD and NEW are sources: a file (a tools/list result, a JSON-RPC response or
a bare array of tools), a folder of per-tool snapshots, git:REV:PATH,
stdio:COMMAND ARGS…, an http(s) URL, or - for standard input (one side only).

Policy comes from .mcpctl.yaml, looked for in the working directory and its
parents (or --config FILE): rule level overrides, ignores with a reason and an
optional expiry, and the open-content policy.

--usage FIXTURES weights the findings by recorded calls (any format replay
reads): each finding gets the number of calls it affects (calls valid under
OLD that use the changed location, or any call of a removed tool); breaking
findings no call touches are marked unused, and with --fail-on-used-only
they do not fail the gate.

--compatibility says which direction changes must be compatible in:
backward (the default: calls made against OLD still work with NEW, results
of NEW stay valid for OLD's clients), forward (the reverse: calls built from
NEW work with OLD, what a rolling update across replicas needs), full (both;
each finding says which direction failed) or none (findings are listed but
never fail).

Exit codes: 0 when nothing reaches --fail-on, 1 when something does (covered
facade findings count as safe, ignored ones not at all), 2 for bad input or
usage, 3 for a bug, 4 when the environment refuses (see help exit-codes).`,
		Example: `  mcpctl diff git:origin/main:tools.lock.json tools.lock.json
  mcpctl diff --format markdown old.json new.json > comment.md
  mcpctl diff --fail-on facade --facades facades.yaml v1.json v2.json
  mcpctl diff --format sarif old.json new.json > mcpctl.sarif`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			if runF != nil {
				return runF(&opts)
			}
			return runDiff(c.Context(), s, opts)
		},
	}
	addDiffFlags(c, &opts)
	return c
}

// addDiffFlags declares diff's flags, filling opts.
func addDiffFlags(c *cobra.Command, opts *diffOptions) {
	f := c.Flags()
	f.StringVar(&opts.FailOn, "fail-on", "breaking", "exit 1 when the gate level reaches this: safe, facade, breaking or never")
	f.StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(report.Formats(), ", "))
	f.BoolVar(&opts.StrictOpenContent, "strict-open-content", false, "treat an optional property added to an open input schema as breaking")
	f.StringVar(&opts.Facades, "facades", "", "facade file (YAML or JSON: tool name → facade block, or a serve config); covered facade findings count as safe (default: the facades of NEW when it is a serve config)")
	f.StringVar(&opts.SuggestFacades, "suggest-facades", "", "write one facade file (YAML) merging every facade suggestion, one block per tool, to FILE; --facades FILE then accepts it as is")
	f.StringVar(&opts.Usage, "usage", "", "weight findings by the recorded calls in FIXTURES (a file or folder, any replay format): each finding counts the calls it affects; breaking findings no call touches are marked unused")
	f.BoolVar(&opts.UsedOnly, "fail-on-used-only", false, "with --usage: breaking findings no recorded call touches do not fail the gate")
	f.IntVar(&opts.Verify, "verify", diff.DefaultVerify, "sample this many instances per changed schema to test safe verdicts (0: off)")
	f.StringVar(&opts.Compatibility, "compatibility", "backward", "direction changes must be compatible in: "+strings.Join(diff.Compatibilities(), ", ")+" (none: report, never fail)")
	f.StringVar(&opts.Config, "config", "", "configuration file (default: .mcpctl.yaml in the working directory or a parent)")
	opts.Live.register(f)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.Formats(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("compatibility", cobra.FixedCompletions(diff.Compatibilities(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"safe", "facade", "breaking", "never"}, cobra.ShellCompDirectiveNoFileComp))
}

// badInput marks err as bad input (exit code 2) and keeps its message.
type badInput struct{ error }

func (e badInput) Unwrap() []error { return []error{ErrUsage, e.error} }

func runDiff(ctx context.Context, s *Streams, opts diffOptions) error {
	failOn, compat, err := checkDiffUsage(opts)
	if err != nil {
		return err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	dopts, err := diffPolicy(s, opts, now, compat)
	if err != nil {
		return err
	}
	old, new, err := loadPair(ctx, s, &opts.Live, opts.Old, opts.New)
	if err != nil {
		return err
	}
	if err := sideFacades(&dopts, opts); err != nil {
		return err
	}
	rep, err := compareWithUsage(ctx, s, opts, old, new, dopts)
	if err != nil {
		return err
	}
	if opts.SuggestFacades != "" {
		if err := writeSuggestedFacades(opts.SuggestFacades, rep); err != nil {
			return err
		}
	}
	return renderDiff(s, opts, failOn, compat, new, rep)
}

// checkDiffUsage checks the flags that go together and reads --fail-on
// and --compatibility.
func checkDiffUsage(opts diffOptions) (diff.Level, diff.Compatibility, error) {
	failOn, err := report.ParseFailOn(opts.FailOn)
	if err != nil {
		return failOn, "", usageErrorf("%v", err)
	}
	if !contains(report.Formats(), opts.Format) {
		return failOn, "", usageErrorf("--format must be one of %s, got %q", strings.Join(report.Formats(), ", "), opts.Format)
	}
	compat, err := diff.ParseCompatibility(opts.Compatibility)
	switch {
	case err != nil:
		return failOn, compat, usageErrorf("--compatibility: %v", err)
	case opts.Verify < 0:
		return failOn, compat, usageErrorf("--verify must be 0 or more, got %d", opts.Verify)
	case opts.UsedOnly && opts.Usage == "":
		return failOn, compat, usageErrorf("--fail-on-used-only needs --usage FIXTURES")
	case opts.Usage == "-" && (opts.Old == "-" || opts.New == "-"):
		return failOn, compat, usageErrorf("only one of OLD, NEW and --usage can be - (standard input)")
	case opts.Old == "-" && opts.New == "-":
		return failOn, compat, usageErrorf("only one of OLD and NEW can be - (standard input)")
	}
	return failOn, compat, nil
}

// diffPolicy builds the comparison's options: flags, then .mcpctl.yaml
// (its warnings and expired ignores printed), then --facades.
func diffPolicy(s *Streams, opts diffOptions, now time.Time, compat diff.Compatibility) (diff.Options, error) {
	dopts := diff.Options{StrictOpenContent: opts.StrictOpenContent, Verify: opts.Verify, Now: now, Compatibility: compat}
	cfg, err := loadConfig(opts)
	if err != nil {
		return dopts, err
	}
	if cfg != nil {
		cfg.Apply(&dopts)
		for _, w := range cfg.Warnings {
			fmt.Fprintf(s.ErrOut, "mcpctl: warning: %s\n", w)
		}
		for _, ig := range cfg.Expired(now) {
			where := ig.Tool
			if ig.Path != "" {
				where += " " + ig.Path
			}
			fmt.Fprintf(s.ErrOut, "mcpctl: warning: %s: the ignore of %s for %s expired on %s; its findings count again\n",
				cfg.Path, ig.Rule, where, diff.ExpiryText(ig.Expires))
		}
	}
	if opts.Facades != "" {
		ff, err := facade.LoadFile(opts.Facades)
		if err != nil {
			return dopts, badInput{err}
		}
		dopts.Facades = ff
	}
	return dopts, nil
}

// compareWithUsage compares old and new, weighted by the calls of --usage
// when given.
func compareWithUsage(ctx context.Context, s *Streams, opts diffOptions, old, new *toolset.Set, dopts diff.Options) (*diff.Report, error) {
	if opts.Usage == "" {
		return diff.Compare(old, new, dopts), nil
	}
	calls, err := fixtures.Read(ctx, opts.Usage, s.In)
	if err != nil {
		return nil, err
	}
	dopts.Usage = fixtures.SunsetUsage(calls, old, dopts.OldFacades)
	rep := diff.Compare(old, new, dopts)
	fixtures.AnnotateUsage(rep, old, new, calls)
	return rep, nil
}

// renderDiff writes the report in --format and returns ErrFindings when it
// fails the gate.
func renderDiff(s *Streams, opts diffOptions, failOn diff.Level, compat diff.Compatibility, new *toolset.Set, rep *diff.Report) error {
	var buf bytes.Buffer
	ropts := report.Options{FailOn: failOn, Version: Version, UsedOnly: opts.UsedOnly, Compatibility: compat}
	if opts.Format == "github" { // the only format that points into files
		ropts.NewFile, ropts.Locations = locations(opts.New, new)
	}
	if opts.Format == "text" {
		ropts.Color, ropts.Width = s.ColorOut(), s.Width()
	}
	if err := report.Render(&buf, opts.Format, rep, ropts); err != nil {
		return fmt.Errorf("render %s: %w", opts.Format, err)
	}
	if _, err := s.Out.Write(buf.Bytes()); err != nil {
		return err
	}
	if n := countRuleBugs(rep); n > 0 {
		fmt.Fprintf(s.ErrOut, "mcpctl: warning: --verify found a counterexample to %d safe verdict(s): a bug in a rule, please report it\n", n)
	}
	if report.Fails(rep, ropts) {
		return ErrFindings
	}
	return nil
}

// writeSuggestedFacades writes the report's facade suggestions, merged into
// one block per tool, as a facade file ({} when there is none).
func writeSuggestedFacades(path string, rep *diff.Report) error {
	f := rep.SuggestedFacades()
	if f == nil {
		f = facade.File{}
	}
	if err := os.WriteFile(path, []byte(report.FacadeFileYAML(f)), 0o644); err != nil {
		return fmt.Errorf("--suggest-facades: %w", err)
	}
	return nil
}

// sideFacades reads the facades OLD and NEW declare (a serve config or a
// contract lockfile, docs/diff.md#facade-coverage-and-usage): NEW's are the
// declared facades unless --facades is given; OLD's carry calls the other
// way, for --compatibility forward and full.
func sideFacades(dopts *diff.Options, opts diffOptions) error {
	oldFF, err := declaredFacades(opts.Old)
	if err != nil {
		return err
	}
	// OLD's facades against a NEW that can declare facades (a serve config
	// or a lockfile with facades): the ones NEW dropped are findings.
	newFF, err := declaredFacades(opts.New)
	if oldFF != nil && newFF == nil && err == nil {
		newFF, err = sourceFacades(opts.New)
	}
	if err != nil {
		return err
	}
	if opts.Facades == "" {
		dopts.Facades = newFF
	}
	dopts.OldFacades = oldFF
	return nil
}

// loadConfig reads --config, or .mcpctl.yaml found upward from the working
// directory; nil when there is none.
func loadConfig(opts diffOptions) (*config.Config, error) {
	path := opts.Config
	if path == "" {
		dir := opts.Dir
		if dir == "" {
			var err error
			if dir, err = os.Getwd(); err != nil {
				return nil, fmt.Errorf("find %s: %w", config.FileName, err)
			}
		}
		p, err := config.Find(dir)
		if err != nil {
			return nil, badInput{err}
		}
		if p == "" {
			return nil, nil
		}
		path = p
	}
	cfg, err := config.Load(path, report.Catalog())
	if err != nil {
		return nil, badInput{err}
	}
	return cfg, nil
}

// declaredFacades returns the facades a source declares: a serve config's
// tools' facade blocks, or a contract lockfile's "facades" member
// (docs/diff.md#facade-coverage-and-usage); nil for any other source, and
// when it declares none. Only local files are looked into.
func declaredFacades(src string) (facade.File, error) {
	ff, err := sourceFacades(src)
	if len(ff) == 0 {
		return nil, err
	}
	return ff, nil
}

// sourceFacades is declaredFacades, with an empty (non-nil) File for a
// source that can declare facades but declares none.
func sourceFacades(src string) (facade.File, error) {
	for _, p := range []string{"git:", "stdio:", "http://", "https://"} {
		if strings.HasPrefix(src, p) {
			return nil, nil
		}
	}
	fi, err := os.Stat(src)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	data, err := safefile.Read(src, safefile.Limits{})
	if err != nil {
		return nil, nil
	}
	return fileFacades(src, data)
}

// fileFacades reads the facades of a serve config or a lockfile's bytes.
func fileFacades(src string, data []byte) (facade.File, error) {
	if source.IsServeConfig(src, data) {
		cfg, err := serveconfig.LoadConfig(src)
		if err != nil {
			return nil, err
		}
		return cfg.Facades(), nil
	}
	if !bytes.Contains(data, []byte(`"`+lockfile.FacadesMember+`"`)) {
		return nil, nil
	}
	lock, err := lockfile.Decode(src, data)
	if err != nil {
		return nil, err
	}
	return lock.Facades, nil
}

// loadPair loads both sides at once (live servers take a while to start);
// an error about OLD is reported before one about NEW.
func loadPair(ctx context.Context, s *Streams, lf *liveFlags, oldSrc, newSrc string) (old, new *toolset.Set, err error) {
	oldLive, err := lf.options(s, "old")
	if err != nil {
		return nil, nil, err
	}
	newLive, err := lf.options(s, "new")
	if err != nil {
		return nil, nil, err
	}
	var wg sync.WaitGroup
	var oldErr, newErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		old, oldErr = source.Load(ctx, oldSrc, source.LoadOptions{Stdin: s.In, Live: oldLive})
	}()
	go func() {
		defer wg.Done()
		new, newErr = source.Load(ctx, newSrc, source.LoadOptions{Stdin: s.In, Live: newLive})
	}()
	wg.Wait()
	if err := lf.finish(errors.Join(oldErr, newErr)); err != nil {
		return nil, nil, err
	}
	return old, new, nil
}

func countRuleBugs(r *diff.Report) int {
	n := 0
	for _, c := range r.Changes {
		if c.RuleBug {
			n++
		}
	}
	return n
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// locations returns NEW's file and where it writes each tool, for
// annotations, when NEW is a file or a folder on disk ("" and nil for
// standard input, git:, stdio: and http sources).
func locations(src string, set *toolset.Set) (string, map[string]report.Location) {
	fi, err := os.Stat(src)
	if src == "-" || err != nil {
		return "", nil
	}
	file := ""
	if fi.Mode().IsRegular() {
		file = filepath.ToSlash(src)
	}
	locs := map[string]report.Location{}
	for _, t := range set.Tools {
		if t.Locate == nil {
			continue
		}
		if p := t.Locate(""); p.Line > 0 {
			locs[t.Name] = report.Location{File: filepath.ToSlash(p.File), Line: p.Line}
		}
	}
	return file, locs
}
