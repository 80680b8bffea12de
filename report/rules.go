package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
)

// RulesText writes the catalog as an aligned table: ID, LEVEL, DIRECTION,
// TAGS, PURPOSE, one rule a line, levels coloured when opts.Color is set.
func RulesText(w io.Writer, rules []diff.Rule, opts Options) error {
	s := newStyles(opts.Color)
	head := []string{"ID", "LEVEL", "DIRECTION", "TAGS", "PURPOSE"}
	rows := [][]string{}
	for _, r := range rules {
		rows = append(rows, []string{r.ID, r.Level.String(), string(r.Direction), strings.Join(r.Tags, ","), oneLine(r.Purpose)})
	}
	width := make([]int, len(head)-1)
	for i := range width {
		width[i] = len(head[i])
		for _, row := range rows {
			width[i] = max(width[i], len(row[i]))
		}
	}
	var b strings.Builder
	line := func(cells []string, style func(i int, padded string) string) {
		for i, cell := range cells {
			if i < len(width) {
				b.WriteString(style(i, fmt.Sprintf("%-*s", width[i], cell)) + "  ")
			} else {
				b.WriteString(style(i, cell))
			}
		}
		b.WriteString("\n")
	}
	line(head, func(_ int, p string) string { return s.render(s.title, p) })
	for k, row := range rows {
		line(row, func(i int, p string) string {
			if i == 1 {
				return s.level(rules[k].Level, p)
			}
			return p
		})
	}
	_, err := io.WriteString(w, strings.ReplaceAll(b.String(), "  \n", "\n"))
	return err
}

// RulesJSON writes the catalog as an indented JSON array of
// {"id", "level", "direction", "tags", "purpose"}, ending with a newline.
func RulesJSON(w io.Writer, rules []diff.Rule) error {
	out := make([]diff.Rule, 0, len(rules))
	for _, r := range rules {
		if r.Tags == nil {
			r.Tags = []string{}
		}
		out = append(out, r)
	}
	return encodeJSON(w, out)
}

// RulesMarkdown writes the catalog as a Markdown table with the columns id,
// level, direction, tags and purpose; the README's rule table is this
// output.
func RulesMarkdown(w io.Writer, rules []diff.Rule) error {
	var b strings.Builder
	b.WriteString("| id | level | direction | tags | purpose |\n|---|---|---|---|---|\n")
	for _, r := range rules {
		tags := make([]string, len(r.Tags))
		for i, t := range r.Tags {
			tags[i] = mdCode(t)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdCode(r.ID), r.Level, r.Direction, strings.Join(tags, " "), mdText(oneLine(r.Purpose)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
