package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/lint"
)

// lintGroup is the findings of one rule at one pointer with one message,
// one per tool.
type lintGroup struct {
	first lint.Finding
	tools []lint.Finding
}

// groupLint groups findings that differ only in their tool, in order of
// first appearance; ignored findings are left out.
func groupLint(findings []lint.Finding) []*lintGroup {
	var groups []*lintGroup
	index := map[[4]string]*lintGroup{}
	for _, f := range findings {
		if f.Ignored {
			continue
		}
		k := [4]string{string(f.Severity), f.Rule, f.Pointer, f.Message}
		g := index[k]
		if g == nil {
			g = &lintGroup{first: f}
			index[k] = g
			groups = append(groups, g)
		}
		g.tools = append(g.tools, f)
	}
	return groups
}

// LintText writes lint findings for people: one line per finding, prefixed
// with where it was written (FILE:LINE:COL) when known, else the source;
// findings that differ only in their tool are written once with the list of
// tools. The last line counts tools, errors, warnings and ignored findings.
// Styled like Text when opts.Color is set.
func LintText(w io.Writer, source string, tools int, findings []lint.Finding, opts Options) error {
	s := newStyles(opts.Color)
	var b strings.Builder
	errs, warns, ignored := 0, 0, 0
	for _, f := range findings {
		switch {
		case f.Ignored:
			ignored++
		case f.Severity == lint.SeverityError:
			errs++
		default:
			warns++
		}
	}
	for _, g := range groupLint(findings) {
		writeLintGroup(&b, s, source, g)
	}
	fmt.Fprintf(&b, "%s: %s, %s, %s", source, plural(tools, "tool"), plural(errs, "error"), plural(warns, "warning"))
	if ignored > 0 {
		fmt.Fprintf(&b, ", %d ignored", ignored)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLintGroup(b *strings.Builder, s styles, source string, g *lintGroup) {
	f := g.first
	where := source
	if len(g.tools) == 1 && f.Position() != "" {
		where = f.Position()
	}
	sev := s.render(s.facade, string(f.Severity))
	if f.Severity == lint.SeverityError {
		sev = s.render(s.fail, string(f.Severity))
	}
	subject := "tool " + s.render(s.tool, fmt.Sprintf("%q", f.Tool))
	if len(g.tools) > 1 {
		subject = s.render(s.tool, plural(len(g.tools), "tool"))
	}
	fmt.Fprintf(b, "%s: %s: %s %s: %s %s\n", where, sev, subject, pointerOrTool(f.Pointer), oneLine(f.Message), s.render(s.faint, "["+f.Rule+"]"))
	if len(g.tools) > 1 {
		names := make([]string, len(g.tools))
		for i, t := range g.tools {
			names[i] = t.Tool
			if p := positionIn(t, source); p != "" {
				names[i] += " (" + p + ")"
			}
		}
		fmt.Fprintf(b, "    %s %s\n", s.render(s.label, "tools:"), strings.Join(names, ", "))
	}
}

// positionIn is where f was written: LINE:COL in source itself, else
// FILE:LINE:COL; "" when nothing more than source is known.
func positionIn(f lint.Finding, source string) string {
	switch {
	case f.File != source:
		return f.Position()
	case f.Line == 0:
		return ""
	case f.Col == 0:
		return fmt.Sprint(f.Line)
	}
	return fmt.Sprintf("%d:%d", f.Line, f.Col)
}

func pointerOrTool(p string) string {
	if p == "" {
		return "(tool)"
	}
	return p
}

// plural writes n with the noun, plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// LintReport is the JSON document of `mcpctl lint --format json`
// (docs/output.md#lint; schema docs/schema/lint-output.schema.json).
type LintReport struct {
	Source  string     `json:"source"`
	Profile string     `json:"profile"`
	Tools   int        `json:"tools"`
	Counts  LintCounts `json:"counts"`
	// Findings are lint.Check's, one per tool, ignored ones included;
	// never null.
	Findings []lint.Finding `json:"findings"`
}

// LintCounts counts findings: errors and warnings not ignored, and the
// ignored ones of either severity.
type LintCounts struct {
	Error   int `json:"error"`
	Ignored int `json:"ignored"`
	Warning int `json:"warning"`
}

// NewLintReport builds the JSON document of findings about source (tools
// tools, checked with profile).
func NewLintReport(source, profile string, tools int, findings []lint.Finding) LintReport {
	r := LintReport{Source: source, Profile: profile, Tools: tools, Findings: findings}
	if r.Findings == nil {
		r.Findings = []lint.Finding{}
	}
	for _, f := range findings {
		switch {
		case f.Ignored:
			r.Counts.Ignored++
		case f.Severity == lint.SeverityError:
			r.Counts.Error++
		default:
			r.Counts.Warning++
		}
	}
	return r
}

// LintJSON writes r indented, with a final newline.
func LintJSON(w io.Writer, r LintReport) error { return encodeJSON(w, r) }
