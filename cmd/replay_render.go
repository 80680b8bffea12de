package cmd

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

// renderReplay writes rep in format (see replayFormats).
func renderReplay(w io.Writer, format string, rep *fixtures.Report, failOn fixtures.FailOn, color bool) error {
	switch format {
	case "json":
		return replayJSON(w, rep)
	case "markdown":
		return replayMarkdown(w, rep, failOn)
	case "github":
		return replayGitHub(w, rep, failOn)
	case "junit":
		return replayJUnit(w, rep, failOn)
	}
	return replayText(w, rep, failOn, color)
}

func replayJSON(w io.Writer, rep *fixtures.Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// shown reports whether a result is listed by the human formats: every
// call that is not plainly accepted.
func shown(r *fixtures.Result) bool {
	return r.Outcome != fixtures.Accepted || r.Unexpected || (r.Live != nil && r.Live.Failed())
}

func summary(rep *fixtures.Report) string {
	c := rep.Counts
	s := fmt.Sprintf("%d calls: %d accepted, %d translated, %d rejected, %d unknown-tool",
		len(rep.Calls), c.Accepted, c.Translated, c.Rejected, c.UnknownTool)
	if rep.Unexpected > 0 {
		s += fmt.Sprintf("; %d not as expected", rep.Unexpected)
	}
	return s
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func stepsText(r *fixtures.Result) string {
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
	fmt.Fprintf(&b, "replay against %s (%s)\n", rep.Against.Source, short(rep.Against.Fingerprint))
	for i := range rep.Calls {
		r := &rep.Calls[i]
		if !shown(r) {
			continue
		}
		word := fmt.Sprintf("%-12s", r.Outcome)
		fmt.Fprintf(&b, "%s  %s  %s", r.Source, style(r.Outcome).Render(word), r.Tool)
		if r.Translated != nil && r.Translated.Tool != r.Tool {
			fmt.Fprintf(&b, " -> %s", r.Translated.Tool)
		}
		b.WriteByte('\n')
		if r.Unexpected {
			fmt.Fprintf(&b, "    expected %s\n", r.Expect)
		}
		if r.Translated != nil {
			fmt.Fprintf(&b, "    %s\n    %s\n", stepsText(r), compactJSON(r.Translated.Arguments))
		}
		if r.Error != nil {
			for _, line := range strings.Split(*r.Error, "\n") {
				fmt.Fprintf(&b, "    %s\n", line)
			}
		}
		if r.Live != nil {
			fmt.Fprintf(&b, "    %s\n", firstLine(liveText(r.Live)))
		}
	}
	b.WriteString(summary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// liveText says what a live server answered.
func liveText(l *fixtures.LiveResult) string {
	s := "live: " + l.Outcome
	if l.Code != 0 {
		s += fmt.Sprintf(" %d", l.Code)
	}
	if l.Message != "" {
		s += ": " + l.Message
	}
	return s
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "\n", "<br>")
}

func mdCode(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

func replayMarkdown(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn) error {
	var b strings.Builder
	verdict := "passes"
	if rep.Fails(failOn) {
		verdict = "fails"
	}
	fmt.Fprintf(&b, "### mcpctl replay %s\n\n%s, against %s (`%s`).\n", verdict, summary(rep), mdCode(rep.Against.Source), short(rep.Against.Fingerprint))
	rows := 0
	for i := range rep.Calls {
		r := &rep.Calls[i]
		if !shown(r) {
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
		switch {
		case r.Translated != nil:
			details = append(details, "→ "+mdCode(r.Translated.Tool)+" "+mdCode(compactJSON(r.Translated.Arguments)))
		case r.Error != nil:
			details = append(details, *r.Error)
		}
		if r.Live != nil {
			details = append(details, liveText(r.Live))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdCode(r.Source), mdCode(r.Tool), outcome, mdCell(strings.Join(details, "\n")))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghEscape escapes a workflow command's message; ghProp also a property.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

func callFileLine(source string) (string, int) {
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
		if !shown(r) {
			continue
		}
		cmd := "notice"
		switch {
		case r.Failing(failOn):
			cmd = "error"
		case r.Outcome == fixtures.Rejected || r.Outcome == fixtures.UnknownTool:
			cmd = "warning"
		}
		file, line := callFileLine(r.Source)
		title := fmt.Sprintf("mcpctl replay: %s %s", r.Tool, r.Outcome)
		var msg []string
		if r.Unexpected {
			msg = append(msg, fmt.Sprintf("expected %s, got %s", r.Expect, r.Outcome))
		}
		switch {
		case r.Translated != nil:
			msg = append(msg, fmt.Sprintf("translated to %s %s (%s)", r.Translated.Tool, compactJSON(r.Translated.Arguments), stepsText(r)))
		case r.Error != nil:
			msg = append(msg, *r.Error)
		}
		if r.Live != nil {
			msg = append(msg, liveText(r.Live))
		}
		fmt.Fprintf(&b, "::%s file=%s,line=%d,title=%s::%s\n", cmd, ghProp(file), line, ghProp(title), ghEscape(strings.Join(msg, "\n")))
	}
	b.WriteString(summary(rep))
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// replayJUnit writes one test suite per fixture file and one test case per
// call; a call that reaches failOn is a failure.
func replayJUnit(w io.Writer, rep *fixtures.Report, failOn fixtures.FailOn) error {
	out := junitSuites{Name: "mcpctl replay"}
	index := map[string]int{}
	for i := range rep.Calls {
		r := &rep.Calls[i]
		file, line := callFileLine(r.Source)
		si, ok := index[file]
		if !ok {
			si = len(out.Suites)
			index[file] = si
			out.Suites = append(out.Suites, junitSuite{Name: file})
		}
		tc := junitCase{Name: fmt.Sprintf("%s:%d %s", file, line, r.Tool), Classname: "replay." + r.Tool, File: file, Line: line}
		if r.Translated != nil {
			tc.SystemOut = fmt.Sprintf("translated to %s %s (%s)", r.Translated.Tool, compactJSON(r.Translated.Arguments), stepsText(r))
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
				text = append(text, liveText(r.Live))
			}
			tc.Failure = &junitFailure{Message: msg, Type: string(r.Outcome), Text: strings.Join(text, "\n")}
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
