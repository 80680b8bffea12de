package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/lint"
	"github.com/mcpctl/mcpctl/rule"
)

// Catalog is every rule mcpctl reports, in the one rule model: the diff
// rules (mcpctl diff) by id, then the lint rules (mcpctl lint) by id. It
// is what mcpctl rules prints, the README's rule table and the catalog
// .mcpctl.yaml is checked against.
func Catalog() []rule.Rule { return rule.Sorted(diff.Rules(), lint.Rules()) }

// catalogLevel is the diff level a rule's default level is coloured and
// mapped like: a diff rule's own, breaking for a lint error and facade for
// a lint warning (as mcpctl lint colours them).
func catalogLevel(r rule.Rule) diff.Level {
	switch lint.Severity(r.Level) {
	case lint.SeverityError:
		return diff.Breaking
	case lint.SeverityWarning:
		return diff.Facade
	}
	l, _ := diff.ParseLevel(string(r.Level))
	return l
}

// RulesText writes the catalog as an aligned table: ID, KIND, LEVEL,
// DIRECTION, TAGS, PURPOSE, one rule a line, levels coloured when
// opts.Color is set.
func RulesText(w io.Writer, rules []rule.Rule, opts Options) error {
	s := newStyles(opts.Color)
	head := []string{"ID", "KIND", "LEVEL", "DIRECTION", "TAGS", "PURPOSE"}
	rows := [][]string{}
	for _, r := range rules {
		rows = append(rows, []string{string(r.ID), string(r.Kind), string(r.Level), string(r.Direction), strings.Join(r.Tags, ","), oneLine(r.Purpose)})
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
			if i == 2 {
				return s.level(catalogLevel(rules[k]), p)
			}
			return p
		})
	}
	_, err := io.WriteString(w, strings.ReplaceAll(b.String(), "  \n", "\n"))
	return err
}

// RulesJSON writes the catalog as an indented JSON array of {"id", "kind",
// "level", "direction" (diff rules), "tags", "profile" (lint rules enabled
// by one profile only), "purpose"}, ending with a newline.
func RulesJSON(w io.Writer, rules []rule.Rule) error {
	out := make([]rule.Rule, 0, len(rules))
	for _, r := range rules {
		if r.Tags == nil {
			r.Tags = []string{}
		}
		out = append(out, r)
	}
	return encodeJSON(w, out)
}

// RulesMarkdown writes the catalog as a Markdown table with the columns id,
// kind, level, direction, tags and purpose; the README's rule table is this
// output.
func RulesMarkdown(w io.Writer, rules []rule.Rule) error {
	var b strings.Builder
	b.WriteString("| id | kind | level | direction | tags | purpose |\n|---|---|---|---|---|---|\n")
	for _, r := range rules {
		tags := make([]string, len(r.Tags))
		for i, t := range r.Tags {
			tags[i] = mdCode(t)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCode(string(r.ID)), r.Kind, r.Level, r.Direction, strings.Join(tags, " "), mdText(oneLine(r.Purpose)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
