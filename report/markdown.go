package report

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
)

// Markdown writes the report as a pull-request comment (GitHub Flavored
// Markdown): a heading with the verdict, a table of counts, then one
// collapsed <details> block per tool listing its findings with witness,
// facade suggestion (a YAML block) and notice.
func Markdown(w io.Writer, r *diff.Report, opts Options) error {
	var b strings.Builder
	mark := "✅"
	if Fails(r, opts) {
		mark = "❌"
	}
	fmt.Fprintf(&b, "### %s mcpctl diff: %s\n\n", mark, r.Level)
	fmt.Fprintf(&b, "%s → %s\n\n", mdCode(r.Old.Source), mdCode(r.New.Source))
	if m := opts.modeShown(); m != "" {
		fmt.Fprintf(&b, "Compatibility: **%s** (each finding says the direction it fails in).\n\n", m)
	}
	b.WriteString("| level | findings |\n|---|---:|\n")
	counts := countsOf(r)
	for _, l := range []diff.Level{diff.Breaking, diff.Facade, diff.Safe} {
		fmt.Fprintf(&b, "| %s | %d |\n", l, counts[l.String()])
	}
	word, why := verdict(r, opts)
	fmt.Fprintf(&b, "\n**Verdict: %s** (%s).\n", word, mdText(why))
	fb := newFacadeBlocks(r)
	for _, g := range groups(r) {
		fmt.Fprintf(&b, "\n<details><summary><code>%s</code>: %s</summary>\n\n", html.EscapeString(g.Tool), countLine(groupCounts(g)))
		for _, c := range g.Changes {
			mdChange(&b, c)
		}
		if f := fb.of(g); len(f) > 0 {
			y := facadeFileYAML(f)
			fence := strings.Repeat("`", max(3, longestRun(y, '`')+1))
			b.WriteString("\nFacade (every suggestion merged; paste into a facade file):\n\n")
			b.WriteString(fence + "yaml\n" + y + fence + "\n")
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdChange(b *strings.Builder, c *diff.Change) {
	head := fmt.Sprintf("- **%s** %s · %s", c.Level, mdCode(c.Rule), c.Direction)
	if c.Path != "" {
		head += " · " + mdCode(c.Path)
	}
	if f := flags(c); len(f) > 0 {
		head += " · _" + mdText(strings.Join(f, "; ")) + "_"
	}
	if c.Message != "" {
		head += " — " + mdText(oneLine(c.Message))
	}
	b.WriteString(head + "\n")
	item := func(name, val string) {
		if val != "" {
			fmt.Fprintf(b, "  - %s: %s\n", name, val)
		}
	}
	if v := compactJSON(c.Old); v != "" {
		item("old", mdCode(shorten(v, maxValue)))
	}
	if v := compactJSON(c.New); v != "" {
		item("new", mdCode(shorten(v, maxValue)))
	}
	if v := compactJSON(c.Witness); v != "" {
		item("witness", mdCode(v))
	} else if c.NoWitness != "" {
		item("witness", "none: "+mdText(oneLine(c.NoWitness)))
	}
	if c.Reason != "" {
		item("reason", mdText(oneLine(c.Reason)))
	}
	if c.Facade != nil {
		item("facade", mdText(facadeRef(c)))
	}
	if c.Notice != nil {
		item("notice", mdText(oneLine(*c.Notice)))
	}
}

// mdEscaper escapes text so that Markdown and inline HTML read it literally.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"|", `\|`, "#", `\#`, "~", `\~`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
)

func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCode is s as an inline code span (CommonMark 6.1): fenced by more
// backticks than the longest run inside, padded when s starts or ends with
// a backtick.
func mdCode(s string) string {
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + oneLine(s) + pad + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
