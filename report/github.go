package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
)

// GitHub writes the report as GitHub Actions workflow commands, one per
// finding that deserves an annotation:
//
//	::error file=F,line=N,title=TOOL PATH::message     breaking (and undecided) findings
//	::warning file=F,line=N,title=TOOL PATH::message   facade findings no declared facade covers
//	::notice file=F,line=N,title=TOOL PATH::message    covered facade findings, and safe findings with a notice
//
// file= and line= name where NEW writes the tool (Options.Locations; the
// file alone for a tool NEW no longer has), so GitHub shows the annotation
// on that line of the pull request; both are left out when NEW is not a
// file.
// Ignored findings and safe findings without a notice get no annotation.
// The message carries the rule, direction, text, witness, facade suggestion
// and notice; a last plain line gives the level, counts and verdict. Data is
// escaped as @actions/core does (% CR LF), properties also escape : and ,.
func GitHub(w io.Writer, r *diff.Report, opts Options) error {
	var b strings.Builder
	for _, g := range groups(r) {
		for _, c := range g.Changes {
			cmd := ghCommand(c)
			if cmd == "" {
				continue
			}
			title := c.Tool
			if c.Path != "" {
				title += " " + c.Path
			}
			fmt.Fprintf(&b, "::%s %stitle=%s::%s\n", cmd, ghLocation(opts.location(c.Tool)), ghProperty(title), ghData(ghMessage(c)))
		}
	}
	word, why := verdict(r, opts)
	fmt.Fprintf(&b, "mcpctl diff: level %s (%s); %s: %s\n", r.Level, countLine(countsOf(r)), word, why)
	_, err := io.WriteString(w, b.String())
	return err
}

// ghCommand picks the workflow command for a finding, "" for none.
func ghCommand(c *diff.Change) string {
	switch {
	case c.Ignored:
		return ""
	case c.Level == diff.Breaking:
		return "error"
	case c.Level == diff.Facade && !c.Covered:
		return "warning"
	case c.Level == diff.Facade, c.Notice != nil:
		return "notice"
	}
	return ""
}

func ghMessage(c *diff.Change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s (%s): %s", c.Level, c.Rule, c.Direction, oneLine(c.Message))
	if f := flags(c); len(f) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(f, "; "))
	}
	if v := compactJSON(c.Witness); v != "" {
		fmt.Fprintf(&b, "\nwitness: %s", v)
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "\nreason: %s", oneLine(c.Reason))
	}
	if c.Facade != nil {
		fmt.Fprintf(&b, "\nfacade:\n%s", strings.TrimSuffix(facadeYAML(c.Facade), "\n"))
	}
	if c.Notice != nil {
		fmt.Fprintf(&b, "\nnotice: %s", oneLine(*c.Notice))
	}
	return b.String()
}

// ghData escapes a workflow command's message (@actions/core escapeData).
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command property (@actions/core
// escapeProperty).
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// ghLocation renders file= and line= properties (each followed by a comma),
// or "" when l has no file.
func ghLocation(l Location) string {
	if l.File == "" {
		return ""
	}
	s := "file=" + ghProperty(l.File) + ","
	if l.Line > 0 {
		s += fmt.Sprintf("line=%d,", l.Line)
	}
	return s
}
