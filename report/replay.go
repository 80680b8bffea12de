package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/mcpctl/mcpctl/fixtures"
)

// ReplayFormats are the formats RenderReplay accepts.
func ReplayFormats() []string { return []string{"text", "json", "markdown", "github", "junit"} }

// RenderReplay writes a replay report (docs/replay.md#replay-recorded-calls-against-a-new-contract) in format: text (styled
// when color), json (the public contract: {"counts", "calls"} plus
// "against" and "unexpected"), markdown (for PR comments), github
// (workflow commands: ::error for calls that reach failOn, ::warning for
// other rejections, ::notice for translations) or junit (one test suite per
// fixture file, one test case per call). The human formats list every call
// that is not plainly accepted. Errors are the writer's, or an unknown
// format.
func RenderReplay(w io.Writer, format string, rep *fixtures.Report, failOn fixtures.FailOn, color bool) error {
	switch format {
	case "json":
		return replayJSON(w, rep)
	case "markdown":
		return replayMarkdown(w, rep, failOn)
	case "github":
		return replayGitHub(w, rep, failOn)
	case "junit":
		return replayJUnit(w, rep, failOn)
	case "text":
		return replayText(w, rep, failOn, color)
	}
	return fmt.Errorf("unknown replay format %q (want %s)", format, strings.Join(ReplayFormats(), ", "))
}

func replayJSON(w io.Writer, rep *fixtures.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// shown reports whether a result is listed by the human formats: every
// call that is not plainly accepted.
func replayShown(r *fixtures.Result) bool {
	return r.Outcome != fixtures.Accepted || r.Unexpected || (r.Live != nil && r.Live.Failed())
}

func replaySummary(rep *fixtures.Report) string {
	c := rep.Counts
	s := fmt.Sprintf("%d calls: %d accepted, %d translated, %d rejected, %d unknown-tool",
		len(rep.Calls), c.Accepted, c.Translated, c.Rejected, c.UnknownTool)
	if rep.Unexpected > 0 {
		s += fmt.Sprintf("; %d not as expected", rep.Unexpected)
	}
	if n := replayCount(rep, fixtures.Accepted, fixtures.Translated); n > 0 {
		s += fmt.Sprintf("; %d recorded accepted, now translated by the facade (still working, as expected)", n)
	}
	if n := replayCount(rep, fixtures.Translated, fixtures.Accepted); n > 0 {
		s += fmt.Sprintf("; %d recorded translated, now accepted as sent (still working, as expected)", n)
	}
	if n := replayCount(rep, fixtures.Rejected, fixtures.Rejected) + replayCount(rep, fixtures.UnknownTool, fixtures.UnknownTool); n > 0 {
		s += fmt.Sprintf("; %d recorded rejected or unknown-tool and still so (negative cases, as expected)", n)
	}
	return s
}

// replayCount counts the calls recorded with expect that replayed as
// outcome.
func replayCount(rep *fixtures.Report, expect, outcome fixtures.Outcome) int {
	n := 0
	for i := range rep.Calls {
		if rep.Calls[i].Expect == expect && rep.Calls[i].Outcome == outcome {
			n++
		}
	}
	return n
}

func replayCompact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func replaySteps(r *fixtures.Result) string {
	var parts []string
	for _, st := range r.Steps {
		parts = append(parts, st.String())
	}
	return strings.Join(parts, "; ")
}

func replayText(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn, color bool) error {
	plain := lipgloss.NewRenderer(io.Discard)
	plain.SetColorProfile(termenv.Ascii)
	style := func(fixtures.Outcome) lipgloss.Style { return plain.NewStyle() }
	if color {
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.ANSI)
		colors := map[fixtures.Outcome]string{fixtures.Accepted: "2", fixtures.Translated: "3", fixtures.Rejected: "1", fixtures.UnknownTool: "1"}
		style = func(o fixtures.Outcome) lipgloss.Style {
			return r.NewStyle().Foreground(lipgloss.Color(colors[o])).Bold(o != fixtures.Accepted)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replay against %s (%s)\n", rep.Against.Source, ShortHash(rep.Against.Fingerprint))
	for i := range rep.Calls {
		r := &rep.Calls[i]
		if !replayShown(r) && len(r.Unchecked) == 0 {
			continue
		}
		word := fmt.Sprintf("%-12s", r.Outcome)
		fmt.Fprintf(&b, "%s  %s  %s", r.Source, style(r.Outcome).Render(word), r.Tool)
		if r.Translated != nil && r.Translated.Tool != r.Tool {
			fmt.Fprintf(&b, " -> %s", r.Translated.Tool)
		}
		if len(r.Unchecked) > 0 {
			b.WriteString("  (redacted values not checked)")
		}
		b.WriteByte('\n')
		if r.Unexpected {
			fmt.Fprintf(&b, "    expected %s\n", r.Expect)
		}
		if e := r.Expectation(); e != "" {
			fmt.Fprintf(&b, "    %s: passes\n", e)
		}
		if r.Translated != nil {
			fmt.Fprintf(&b, "    %s\n    %s\n", replaySteps(r), replayCompact(r.Translated.Arguments))
		}
		if r.Error != nil {
			for _, line := range strings.Split(*r.Error, "\n") {
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
		if r.Live != nil {
			fmt.Fprintf(&b, "    %s\n", replayFirstLine(replayLive(r.Live)))
		}
	}
	b.WriteString(replaySummary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// liveText says what a live server answered.
func replayLive(l *fixtures.LiveResult) string {
	s := "live: " + l.Outcome
	if l.Code != 0 {
		s += fmt.Sprintf(" %d", l.Code)
	}
	if l.Message != "" {
		s += ": " + l.Message
	}
	return s
}

func replayFirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func replayCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "\n", "<br>")
}

func replayMarkdown(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn) error {
	var b strings.Builder
	verdict := "passes"
	if rep.Fails(failOn) {
		verdict = "fails"
	}
	fmt.Fprintf(&b, "### mcpctl replay %s\n\n%s, against %s (`%s`).\n", verdict, replaySummary(rep), mdCode(rep.Against.Source), ShortHash(rep.Against.Fingerprint))
	rows := 0
	for i := range rep.Calls {
		r := &rep.Calls[i]
		if !replayShown(r) {
			continue
		}
		if rows == 0 {
			b.WriteString("\n| call | tool | outcome | details |\n|---|---|---|---|\n")
		}
		rows++
		outcome := string(r.Outcome)
		if r.Failing(failOn) {
			outcome = "**" + outcome + "**"
		}
		var details []string
		if r.Unexpected {
			details = append(details, "expected "+string(r.Expect))
		}
		if e := r.Expectation(); e != "" {
			details = append(details, e+": passes")
		}
		switch {
		case r.Translated != nil:
			details = append(details, "→ "+mdCode(r.Translated.Tool)+" "+mdCode(replayCompact(r.Translated.Arguments)))
		case r.Error != nil:
			details = append(details, *r.Error)
		}
		if r.Live != nil {
			details = append(details, replayLive(r.Live))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCode(r.Source), mdCode(r.Tool), outcome, replayCell(strings.Join(details, "\n")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func replayFileLine(source string) (string, int) {
	i := strings.LastIndexByte(source, ':')
	if i < 0 {
		return source, 0
	}
	n, err := strconv.Atoi(source[i+1:])
	if err != nil {
		return source, 0
	}
	return source[:i], n
}

func replayGitHub(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn) error {
	var b strings.Builder
	for i := range rep.Calls {
		r := &rep.Calls[i]
		if !replayShown(r) {
			continue
		}
		cmd := "notice"
		switch {
		case r.Failing(failOn):
			cmd = "error"
		case r.Outcome == fixtures.Rejected || r.Outcome == fixtures.UnknownTool:
			cmd = "warning"
		}
		file, line := replayFileLine(r.Source)
		title := fmt.Sprintf("mcpctl replay: %s %s", r.Tool, r.Outcome)
		var msg []string
		if r.Unexpected {
			msg = append(msg, fmt.Sprintf("expected %s, got %s", r.Expect, r.Outcome))
		}
		switch {
		case r.Translated != nil:
			msg = append(msg, fmt.Sprintf("translated to %s %s (%s)", r.Translated.Tool, replayCompact(r.Translated.Arguments), replaySteps(r)))
		case r.Error != nil:
			msg = append(msg, *r.Error)
		}
		if r.Live != nil {
			msg = append(msg, replayLive(r.Live))
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,title=%s::%s\n", cmd, ghProperty(file), line, ghProperty(title), ghData(strings.Join(msg, "\n")))
	}
	b.WriteString(replaySummary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

type replaySuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Name     string        `xml:"name,attr"`
	Tests    int           `xml:"tests,attr"`
	Failures int           `xml:"failures,attr"`
	Suites   []replaySuite `xml:"testsuite"`
}

type replaySuite struct {
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Cases    []replayCase `xml:"testcase"`
}

type replayCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	File      string         `xml:"file,attr,omitempty"`
	Line      int            `xml:"line,attr,omitempty"`
	Failure   *replayFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type replayFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// replayJUnit writes one test suite per fixture file and one test case per
// call; a call that reaches failOn is a failure.
func replayJUnit(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn) error {
	out := replaySuites{Name: "mcpctl replay"}
	index := map[string]int{}
	for i := range rep.Calls {
		r := &rep.Calls[i]
		file, line := replayFileLine(r.Source)
		si, ok := index[file]
		if !ok {
			si = len(out.Suites)
			index[file] = si
			out.Suites = append(out.Suites, replaySuite{Name: file})
		}
		tc := replayCase{Name: fmt.Sprintf("%s:%d %s", file, line, r.Tool), Classname: "replay." + r.Tool, File: file, Line: line}
		if r.Translated != nil {
			tc.SystemOut = fmt.Sprintf("translated to %s %s (%s)", r.Translated.Tool, replayCompact(r.Translated.Arguments), replaySteps(r))
		}
		if r.Failing(failOn) {
			var text []string
			if r.Error != nil {
				text = append(text, *r.Error)
			}
			msg := string(r.Outcome)
			if r.Unexpected {
				msg = fmt.Sprintf("expected %s, got %s", r.Expect, r.Outcome)
			}
			if r.Live != nil && r.Live.Failed() {
				msg = fmt.Sprintf("%s, live %s", msg, r.Live.Outcome)
				text = append(text, replayLive(r.Live))
			}
			tc.Failure = &replayFailure{Message: msg, Type: string(r.Outcome), Text: strings.Join(text, "\n")}
			out.Suites[si].Failures++
			out.Failures++
		}
		out.Suites[si].Tests++
		out.Tests++
		out.Suites[si].Cases = append(out.Suites[si].Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
