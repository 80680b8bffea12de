package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
)

// Never is the --fail-on threshold no finding reaches: with it a report
// never fails.
const Never diff.Level = diff.Breaking + 1

// Options tunes the renderers.
type Options struct {
	// Color styles the text formats with ANSI escapes (lipgloss). Set it only
	// when the output is a terminal and NO_COLOR is unset.
	Color bool
	// FailOn is the --fail-on threshold: diff.Safe, diff.Facade,
	// diff.Breaking or Never. diff.LevelNone (the zero value) means the
	// default, diff.Breaking.
	FailOn diff.Level
	// Width is the terminal's width in columns: the text format cuts old
	// and new values so their lines fit (never under minValue characters of
	// value). 0 cuts values at maxValue characters.
	Width int
	// Version is mcpctl's version, written into SARIF and JUnit output.
	Version string
	// Rules is the rule catalog SARIF lists; nil means diff.Rules().
	Rules []diff.Rule
	// UsedOnly is --fail-on-used-only: findings marked Unused (breaking
	// findings no recorded call touches, diff --usage) do not count at the
	// gate.
	UsedOnly bool
	// Locations say where NEW writes each tool, by tool name, and NewFile
	// is NEW's file (for the tools it no longer has): the github format
	// puts them in file= and line=, so annotations show inline on a pull
	// request. Empty when NEW is not a file.
	Locations map[string]Location
	NewFile   string
	// Compatibility is the mode the report was judged in (diff
	// --compatibility): the text and markdown formats name it in their
	// header unless it is backward, the default (docs/diff.md#compatibility-modes).
	Compatibility diff.Compatibility
}

// modeShown is the compatibility mode a human format names in its header,
// "" for the default, backward.
func (o Options) modeShown() string {
	if o.Compatibility == "" || o.Compatibility == diff.Backward {
		return ""
	}
	return string(o.Compatibility)
}

// Location is where a tool is written: a file (as given, with forward
// slashes) and the 1-based line its object starts on (0: unknown).
type Location struct {
	File string
	Line int
}

// location returns where a finding on tool should point: the tool in NEW,
// else NEW's file, else nothing (File "").
func (o Options) location(tool string) Location {
	if l, ok := o.Locations[tool]; ok && l.File != "" {
		return l
	}
	return Location{File: o.NewFile}
}

func (o Options) failOn() diff.Level {
	if o.FailOn == diff.LevelNone {
		return diff.Breaking
	}
	return o.FailOn
}

func (o Options) rules() []diff.Rule {
	if o.Rules == nil {
		return diff.Rules()
	}
	return o.Rules
}

// ParseFailOn parses a --fail-on value: "safe", "facade", "breaking" or
// "never".
func ParseFailOn(s string) (diff.Level, error) {
	switch s {
	case "safe":
		return diff.Safe, nil
	case "facade":
		return diff.Facade, nil
	case "breaking":
		return diff.Breaking, nil
	case "never":
		return Never, nil
	}
	return 0, fmt.Errorf("unknown --fail-on value %q (want safe, facade, breaking or never)", s)
}

// FailOnString is the --fail-on spelling of a threshold.
func FailOnString(l diff.Level) string {
	switch l {
	case Never:
		return "never"
	case diff.LevelNone:
		return diff.Breaking.String()
	}
	return l.String()
}

// Fails reports whether r fails the --fail-on threshold of opts: its gate
// level (covered facade findings count as safe, ignored findings not at
// all) is at or above the threshold.
func Fails(r *diff.Report, opts Options) bool {
	t := opts.failOn()
	g := gateLevel(r, opts)
	return t != Never && g != diff.LevelNone && g >= t
}

// gateLevel is r.GateLevel, without the findings marked Unused when
// opts.UsedOnly.
func gateLevel(r *diff.Report, opts Options) diff.Level {
	if !opts.UsedOnly {
		return r.GateLevel()
	}
	l := diff.LevelNone
	for i := range r.Changes {
		if c := &r.Changes[i]; !c.Unused {
			l = max(l, effective(c))
		}
	}
	return l
}

// effective is the level a finding counts with at the gate: LevelNone when
// ignored, safe when a declared facade covers it.
func effective(c *diff.Change) diff.Level {
	switch {
	case c.Ignored:
		return diff.LevelNone
	case c.Level == diff.Facade && c.Covered:
		return diff.Safe
	}
	return c.Level
}

// failing reports whether one finding is at or above the threshold.
func failing(c *diff.Change, opts Options) bool {
	if opts.UsedOnly && c.Unused {
		return false
	}
	t := opts.failOn()
	e := effective(c)
	return t != Never && e != diff.LevelNone && e >= t
}

// Formats are the diff report formats Render accepts.
func Formats() []string {
	return []string{"text", "json", "markdown", "github", "junit", "sarif"}
}

// RulesFormats are the catalog formats RenderRules accepts.
func RulesFormats() []string { return []string{"text", "json", "markdown"} }

// Render writes r to w in format (one of Formats). Errors are the writer's,
// or an unknown format.
func Render(w io.Writer, format string, r *diff.Report, opts Options) error {
	switch format {
	case "text":
		return Text(w, r, opts)
	case "json":
		return JSON(w, r, opts)
	case "markdown":
		return Markdown(w, r, opts)
	case "github":
		return GitHub(w, r, opts)
	case "junit":
		return JUnit(w, r, opts)
	case "sarif":
		return SARIF(w, r, opts)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats(), ", "))
}

// RenderRules writes the catalog to w in format (one of RulesFormats).
func RenderRules(w io.Writer, format string, rules []diff.Rule, opts Options) error {
	switch format {
	case "text":
		return RulesText(w, rules, opts)
	case "json":
		return RulesJSON(w, rules)
	case "markdown":
		return RulesMarkdown(w, rules)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(RulesFormats(), ", "))
}

// group is the findings of one tool.
type group struct {
	Tool    string
	Changes []*diff.Change
	Max     diff.Level // highest effective level
}

// groups splits r's changes by tool: the tool with the most severe
// (effective) finding first, then by name; inside a tool, by effective
// level, most severe first, keeping the report's order otherwise.
func groups(r *diff.Report) []group {
	var gs []group
	idx := map[string]int{}
	for i := range r.Changes {
		c := &r.Changes[i]
		j, ok := idx[c.Tool]
		if !ok {
			j = len(gs)
			idx[c.Tool] = j
			gs = append(gs, group{Tool: c.Tool})
		}
		gs[j].Changes = append(gs[j].Changes, c)
		gs[j].Max = max(gs[j].Max, effective(c))
	}
	for i := range gs {
		slices.SortStableFunc(gs[i].Changes, func(a, b *diff.Change) int { return cmp.Compare(effective(b), effective(a)) })
	}
	slices.SortStableFunc(gs, func(a, b group) int {
		if a.Max != b.Max {
			return cmp.Compare(b.Max, a.Max)
		}
		return canon.CompareKeys(a.Tool, b.Tool)
	})
	return gs
}

// countsOf returns the counts of r by level, with every level present.
func countsOf(r *diff.Report) map[string]int {
	c := map[string]int{"safe": 0, "facade": 0, "breaking": 0}
	for k, v := range r.Counts {
		c[k] = v
	}
	return c
}

// countLine is "1 breaking, 2 facade, 3 safe", skipping zeros ("no
// findings" when all are zero).
func countLine(counts map[string]int) string {
	var parts []string
	for _, l := range []string{"breaking", "facade", "safe"} {
		if counts[l] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[l], l))
		}
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

// groupCounts counts a group's findings by raw level.
func groupCounts(g group) map[string]int {
	c := map[string]int{}
	for _, ch := range g.Changes {
		c[ch.Level.String()]++
	}
	return c
}

// compactJSON returns raw JSON on one line, "" for absent values (nil or
// null: the engine writes null for "no value on this side").
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	if b.String() == "null" {
		return ""
	}
	return b.String()
}

// facadeYAML renders a suggestion in the facade-file shape {TOOL: BLOCK},
// ending with a newline.
func facadeYAML(s *diff.Suggestion) string {
	return facadeFileYAML(facade.File{s.Tool: s.Block})
}

// FacadeFileYAML renders a facade file as YAML (two-space indent), as
// mcpctl diff --suggest-facades writes it and --facades reads it.
func FacadeFileYAML(f facade.File) string { return facadeFileYAML(f) }

func facadeFileYAML(f facade.File) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f); err != nil {
		return fmt.Sprintf("# cannot render facade: %v\n", err)
	}
	_ = enc.Close()
	return b.String()
}

// facadeBlocks prints, once per tool in a whole output, the facade of each
// tool that suggestions name: all is the report's suggestions merged
// (Report.SuggestedFacades), shown the tools printed already.
type facadeBlocks struct {
	all   facade.File
	shown map[string]bool
}

func newFacadeBlocks(r *diff.Report) *facadeBlocks {
	return &facadeBlocks{all: r.SuggestedFacades(), shown: map[string]bool{}}
}

// of returns the merged blocks of the tools g's suggestions name that were
// not shown yet (and marks them shown).
func (fb *facadeBlocks) of(g group) facade.File {
	var f facade.File
	for _, c := range g.Changes {
		if c.Facade == nil || fb.shown[c.Facade.Tool] {
			continue
		}
		if f == nil {
			f = facade.File{}
		}
		fb.shown[c.Facade.Tool] = true
		f[c.Facade.Tool] = fb.all[c.Facade.Tool]
	}
	return f
}

// facadeRef says, for a finding with a suggestion, where its part of the
// merged facade is printed.
func facadeRef(c *diff.Change) string {
	return fmt.Sprintf("part of the merged facade of %s", c.Facade.Tool)
}

// toolPointer is the JSON Pointer of a finding inside its tool object: the
// schema findings' paths are relative to inputSchema or outputSchema.
func toolPointer(c *diff.Change) string {
	switch c.Direction {
	case diff.Input:
		return "/inputSchema" + c.Path
	case diff.Output:
		return "/outputSchema" + c.Path
	}
	return c.Path
}

// flags lists a finding's markers: the compatibility direction it fails
// in (forward or full mode), ignored, covered, undecided, rule bug.
func flags(c *diff.Change) []string {
	var f []string
	if c.Compatibility != "" {
		f = append(f, "fails "+string(c.Compatibility))
	}
	if c.Ignored {
		s := "ignored"
		if c.IgnoreReason != "" {
			s += ": " + c.IgnoreReason
		}
		f = append(f, s)
	}
	if c.Covered {
		f = append(f, "covered by a declared facade")
	}
	if c.Undecided {
		f = append(f, "undecided")
	}
	if c.RuleBug {
		f = append(f, "rule bug: --verify found a counterexample")
	}
	if c.Unused {
		f = append(f, "unused: no recorded call touches it")
	} else if c.Calls != nil {
		f = append(f, fmt.Sprintf("%d recorded call(s) affected", *c.Calls))
	}
	return f
}

// verdict says whether r passes the gate, and why: ("fails", "gate level
// breaking is at or above --fail-on breaking").
func verdict(r *diff.Report, opts Options) (word, why string) {
	g := gateLevel(r, opts)
	t := opts.failOn()
	switch {
	case t == Never:
		return "passes", fmt.Sprintf("--fail-on never (gate level %s)", g)
	case Fails(r, opts):
		return "fails", fmt.Sprintf("gate level %s is at or above --fail-on %s", g, FailOnString(t))
	}
	return "passes", fmt.Sprintf("gate level %s is below --fail-on %s", g, FailOnString(t))
}

// oneLine folds newlines into spaces.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
