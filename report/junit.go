package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/diff"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	Classname string         `xml:"classname,attr"`
	Failures  []junitFailure `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes the report as JUnit XML: one <testsuite> for the comparison,
// one <testcase> per tool with findings (one named "tool contract" when
// there are none), and one <failure type=RULE> per finding at or above
// opts.FailOn (covered facade findings count as safe, ignored ones never
// fail); the other findings of a tool are listed in its <system-out>.
// Properties name both sides, the level, the gate level and --fail-on.
func JUnit(w io.Writer, r *diff.Report, opts Options) error {
	suite := junitSuite{
		Name: fmt.Sprintf("mcpctl diff %s → %s", r.Old.Source, r.New.Source),
		Properties: []junitProperty{
			{"mcpctl.version", opts.Version},
			{"old.source", r.Old.Source},
			{"old.fingerprint", r.Old.Fingerprint},
			{"new.source", r.New.Source},
			{"new.fingerprint", r.New.Fingerprint},
			{"level", r.Level.String()},
			{"gate.level", gateLevel(r, opts).String()},
			{"fail-on", FailOnString(opts.failOn())},
		},
	}
	for _, g := range groups(r) {
		tc := junitCase{Name: g.Tool, Classname: "mcpctl.diff"}
		var out strings.Builder
		for _, c := range g.Changes {
			if failing(c, opts) {
				tc.Failures = append(tc.Failures, junitFailure{
					Message: junitSummary(c),
					Type:    c.Rule,
					Text:    junitDetails(c),
				})
				continue
			}
			out.WriteString(junitSummary(c) + "\n")
		}
		tc.SystemOut = out.String()
		if len(tc.Failures) > 0 {
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	if len(suite.Cases) == 0 {
		suite.Cases = append(suite.Cases, junitCase{Name: "tool contract", Classname: "mcpctl.diff", SystemOut: "no changes\n"})
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "mcpctl diff", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitSummary is one line: "[breaking] RULE (input) /path: message [flags]".
func junitSummary(c *diff.Change) string {
	s := fmt.Sprintf("[%s] %s (%s)", c.Level, c.Rule, c.Direction)
	if c.Path != "" {
		s += " " + c.Path
	}
	s += ": " + oneLine(c.Message)
	if f := flags(c); len(f) > 0 {
		s += " [" + strings.Join(f, "; ") + "]"
	}
	return s
}

func junitDetails(c *diff.Change) string {
	var b strings.Builder
	b.WriteString(junitSummary(c) + "\n")
	line := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	line("old", compactJSON(c.Old))
	line("new", compactJSON(c.New))
	line("witness", compactJSON(c.Witness))
	if compactJSON(c.Witness) == "" {
		line("no witness", oneLine(c.NoWitness))
	}
	line("reason", oneLine(c.Reason))
	if c.Facade != nil {
		b.WriteString("facade:\n" + facadeYAML(c.Facade))
	}
	if c.Notice != nil {
		line("notice", oneLine(*c.Notice))
	}
	return b.String()
}
