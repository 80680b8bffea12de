package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/mcpctl/mcpctl/diff"
)

// maxValue is how many characters of an old or new value the text format
// shows when the width is unknown; witnesses and facades are never
// shortened. minValue is the least it shows on a narrow terminal.
const (
	maxValue = 160
	minValue = 40
)

// fieldIndent is how far a field's value starts from the line's start: the
// indent of a change's fields and the label column ("old:     ").
const fieldIndent = len("      ") + len("old:     ")

// styles are the text format's styles; the zero value renders plain text.
type styles struct {
	on                                  bool
	breaking, facade, safe, none, title lipgloss.Style
	tool, label, notice, faint, fail    lipgloss.Style
	pass                                lipgloss.Style
}

func newStyles(color bool) styles {
	if !color {
		return styles{}
	}
	// A renderer of its own with a fixed 16-colour profile: the output
	// respects the terminal's palette and does not depend on probing it.
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.ANSI)
	r.SetHasDarkBackground(true)
	st := r.NewStyle()
	return styles{
		on:       true,
		breaking: st.Foreground(lipgloss.Color("1")).Bold(true),
		facade:   st.Foreground(lipgloss.Color("3")).Bold(true),
		safe:     st.Foreground(lipgloss.Color("2")),
		none:     st.Faint(true),
		title:    st.Bold(true),
		tool:     st.Bold(true),
		label:    st.Faint(true),
		notice:   st.Foreground(lipgloss.Color("6")),
		faint:    st.Faint(true),
		fail:     st.Foreground(lipgloss.Color("1")).Bold(true),
		pass:     st.Foreground(lipgloss.Color("2")).Bold(true),
	}
}

func (s styles) render(st lipgloss.Style, text string) string {
	if !s.on || text == "" {
		return text
	}
	return st.Render(text)
}

func (s styles) level(l diff.Level, text string) string {
	switch l {
	case diff.Breaking:
		return s.render(s.breaking, text)
	case diff.Facade:
		return s.render(s.facade, text)
	case diff.Safe:
		return s.render(s.safe, text)
	}
	return s.render(s.none, text)
}

// Text writes the report for a person: a header naming both sides, the
// findings grouped by tool (most severe first), then the level, the counts
// and the verdict against opts.FailOn.
func Text(w io.Writer, r *diff.Report, opts Options) error {
	s := newStyles(opts.Color)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", s.render(s.title, "mcpctl diff"))
	fmt.Fprintf(&b, "  %s  %s  %s\n", s.render(s.label, "old"), r.Old.Source, s.render(s.faint, shortFP(r.Old.Fingerprint)))
	fmt.Fprintf(&b, "  %s  %s  %s\n", s.render(s.label, "new"), r.New.Source, s.render(s.faint, shortFP(r.New.Fingerprint)))
	if m := opts.modeShown(); m != "" {
		fmt.Fprintf(&b, "  %s %s\n", s.render(s.label, "compatibility:"), m)
	}
	fb := newFacadeBlocks(r)
	for _, g := range groups(r) {
		fmt.Fprintf(&b, "\n%s  %s\n", s.render(s.tool, g.Tool), s.render(s.faint, "("+countLine(groupCounts(g))+")"))
		for _, c := range g.Changes {
			textChange(&b, s, c, valueWidth(opts.Width))
		}
		if f := fb.of(g); len(f) > 0 {
			fmt.Fprintf(&b, "  %s\n", s.render(s.label, "facade (every suggestion merged; paste into a facade file):"))
			for _, line := range strings.Split(strings.TrimSuffix(facadeFileYAML(f), "\n"), "\n") {
				b.WriteString("    " + line + "\n")
			}
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s %s (%s)\n", s.render(s.label, "level:"), s.level(r.Level, r.Level.String()), countLine(countsOf(r)))
	word, why := verdict(r, opts)
	if word == "fails" {
		fmt.Fprintf(&b, "%s %s\n", s.render(s.fail, "FAIL"), why)
	} else {
		fmt.Fprintf(&b, "%s %s\n", s.render(s.pass, "PASS"), why)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func textChange(b *strings.Builder, s styles, c *diff.Change, width int) {
	lv := fmt.Sprintf("%-8s", c.Level)
	head := []string{"  " + s.level(c.Level, lv), c.Rule, s.render(s.faint, string(c.Direction))}
	if c.Path != "" {
		head = append(head, c.Path)
	}
	if f := flags(c); len(f) > 0 {
		head = append(head, s.render(s.faint, "["+strings.Join(f, "; ")+"]"))
	}
	b.WriteString(strings.Join(head, "  ") + "\n")
	const ind = "      "
	if c.Message != "" {
		b.WriteString(ind + oneLine(c.Message) + "\n")
	}
	field := func(name, val string) {
		if val == "" {
			return
		}
		fmt.Fprintf(b, "%s%s %s\n", ind, s.render(s.label, fmt.Sprintf("%-8s", name+":")), val)
	}
	field("old", shorten(compactJSON(c.Old), width))
	field("new", shorten(compactJSON(c.New), width))
	field("witness", compactJSON(c.Witness))
	if compactJSON(c.Witness) == "" && c.NoWitness != "" {
		field("witness", s.render(s.faint, "none: "+oneLine(c.NoWitness)))
	}
	// Reason says why a finding is undecided, and also why a removed tool
	// has no facade or a facade finding is not covered.
	if c.Reason != "" {
		field("reason", oneLine(c.Reason))
	}
	if c.Facade != nil {
		field("facade", facadeRef(c))
	}
	if c.Notice != nil {
		// One line per notice: a finding may carry several.
		for _, n := range strings.Split(*c.Notice, "\n") {
			if n = oneLine(n); n != "" {
				field("notice", s.render(s.notice, n))
			}
		}
	}
}

// shortFP is a fingerprint's first 12 hex digits, or "-" when absent.
func shortFP(fp string) string {
	if fp == "" {
		return "-"
	}
	if len(fp) > 12 {
		return "sha256:" + fp[:12]
	}
	return "sha256:" + fp
}

// valueWidth is how many characters of a value fit a line of width
// columns (see Options.Width).
func valueWidth(width int) int {
	if width <= 0 {
		return maxValue
	}
	return max(minValue, width-fieldIndent)
}

// shorten cuts s to n characters, the last one an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
