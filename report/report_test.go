package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/rule"
)

var update = flag.Bool("update", false, "rewrite golden files (and the README rule table)")

func ptr[T any](v T) *T { return &v }

// testCatalog is a small catalog with the rules richReport uses.
func testCatalog() []diff.Rule {
	return []diff.Rule{
		{ID: "input-enum-value-removed", Kind: "diff", Level: "breaking", Direction: diff.Input, Tags: []string{"values"}, Purpose: "An input enum losing a value rejects calls that used it."},
		{ID: "input-property-removed", Kind: "diff", Level: "breaking", Direction: diff.Input, Tags: []string{"existence"}, Purpose: "An input property the server no longer documents or honours."},
		{ID: "input-property-renamed", Kind: "diff", Level: "facade", Direction: diff.Input, Tags: []string{"existence", "structure"}, Purpose: "A property removed and another added with the same schema: a rename facade carries old calls."},
		{ID: "input-required-with-default", Kind: "diff", Level: "facade", Direction: diff.Input, Tags: []string{"requiredness"}, Purpose: "An optional property made required where a default exists."},
		{ID: "input-undecided", Kind: "diff", Level: "breaking", Direction: diff.Input, Tags: []string{"structure"}, Purpose: "A change the engine could not decide | reported as breaking."},
		{ID: "output-type-widened", Kind: "diff", Level: "breaking", Direction: diff.Output, Tags: []string{"type"}, Purpose: "Output values of a new kind break clients that validate."},
		{ID: "tool-added", Kind: "diff", Level: "safe", Direction: diff.ToolD, Purpose: "A new tool."},
		{ID: "tool-description-changed", Kind: "diff", Level: "safe", Direction: diff.ToolD, Tags: []string{"documentation"}, Purpose: "Descriptions steer the model; a change carries a notice."},
		{ID: "input-max-raised", Kind: "diff", Level: "safe", Direction: diff.Input, Tags: []string{"constraint"}, Purpose: "An input maximum raised accepts more."},
	}
}

// testRuleCatalog is testCatalog with two lint rules, one enabled by the
// strict profile only, as mcpctl rules lists them after the diff rules.
func testRuleCatalog() []rule.Rule {
	return append(testCatalog(),
		rule.Rule{ID: "name-invalid", Kind: rule.Lint, Level: "error", Purpose: "A tool name must use only A-Z a-z 0-9 _ - and dot."},
		rule.Rule{ID: "object-open", Kind: rule.Lint, Level: "warning", Profile: "strict", Purpose: "Object schemas should be closed | strict profile only."},
	)
}

// richReport has every kind of finding: breaking with witness, ignored,
// undecided, without witness, facade (covered and not) with suggestions,
// safe with and without notice, a rule bug, and text that needs escaping in
// every format.
func richReport() *diff.Report {
	r := &diff.Report{
		Level:  diff.Breaking,
		Counts: map[string]int{"safe": 3, "facade": 2, "breaking": 4},
		Old:    diff.Side{Source: "github-mcp-server/v0.10.0.json", Fingerprint: "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"},
		New:    diff.Side{Source: "github-mcp-server/v0.11.0.json", Fingerprint: "f9e8d7c6b5a40392817f6e5d4c3b2a19f9e8d7c6b5a40392817f6e5d4c3b2a1"},
		Changes: []diff.Change{
			{Rule: "tool-added", Level: diff.Safe, Direction: diff.ToolD, Tool: "add_sub_issue",
				Message: "tool added", New: json.RawMessage(`"add_sub_issue"`)},
			{Rule: "tool-description-changed", Level: diff.Safe, Direction: diff.ToolD, Tool: "create_issue", Path: "/description",
				Old: json.RawMessage(`"Create a new issue"`), New: json.RawMessage(`"Create a <b>new</b> issue: 100% | safe, \"fast\"\nsecond line"`),
				Message: "description changed: 100% <b>new</b> | `x` *y* [z],\nnext line",
				Notice:  ptr("descriptions steer the model: review the new wording")},
			{Rule: "input-enum-value-removed", Level: diff.Breaking, Direction: diff.Input, Tool: "list_issues", Path: "/properties/state/enum",
				Old: json.RawMessage(`["open","closed","all"]`), New: json.RawMessage(`["OPEN","CLOSED"]`),
				Message: `input enum value "all" removed`, Witness: json.RawMessage(`{"state":"all"}`),
				Facade: &diff.Suggestion{Tool: "list_issues", Block: facade.Block{Values: map[string]map[string]any{"state": {"open": "OPEN", "closed": "CLOSED"}}}}},
			{Rule: "input-property-removed", Level: diff.Breaking, Direction: diff.Input, Tool: "list_issues", Path: "/properties/sort",
				Old:     json.RawMessage(`{"enum":["created","updated","comments"],"type":"string"}`),
				Message: "input property sort removed", Witness: json.RawMessage(`{"sort":"created"}`),
				Ignored: true, IgnoreReason: "sort was never honoured by the server"},
			{Rule: "input-max-raised", Level: diff.Safe, Direction: diff.Input, Tool: "list_issues", Path: "/properties/perPage/maximum",
				Old: json.RawMessage(`50`), New: json.RawMessage(`100`), Message: "maximum raised from 50 to 100", RuleBug: true,
				Witness: json.RawMessage(`{"perPage":75}`)},
			{Rule: "input-property-renamed", Level: diff.Facade, Direction: diff.Input, Tool: "search_code", Path: "/properties/q",
				Old: json.RawMessage(`{"type":"string"}`), Message: "required property q renamed to query",
				Witness: json.RawMessage(`{"q":"repo:github/github-mcp-server"}`),
				Facade:  &diff.Suggestion{Tool: "search_code", Block: facade.Block{Rename: map[string]string{"q": "query"}}}},
			{Rule: "input-required-with-default", Level: diff.Facade, Direction: diff.Input, Tool: "get_issue", Path: "/required",
				Old: json.RawMessage(`["owner","repo"]`), New: json.RawMessage(`["owner","repo","issue_number"]`),
				Message: "issue_number made required; it has a default", Witness: json.RawMessage(`{"owner":"o","repo":"r"}`),
				Facade:  &diff.Suggestion{Tool: "get_issue", Block: facade.Block{Defaults: map[string]any{"issue_number": 1}, Aliases: []facade.Alias{{Name: "issue_get"}, {Name: "get_issue_v1", Inject: map[string]any{"method": "get"}}}}},
				Covered: true},
			{Rule: "input-undecided", Level: diff.Breaking, Direction: diff.Input, Tool: "push_files", Path: "/properties/files/items/oneOf",
				Message: "oneOf branches changed", Undecided: true, Reason: "branches could not be matched by subsumption",
				NoWitness: "no instance separates the schemas within the search bound"},
			{Rule: "output-type-widened", Level: diff.Breaking, Direction: diff.Output, Tool: "get_me", Path: "/properties/plan/type",
				Old: json.RawMessage(`"object"`), New: json.RawMessage(`["null","object"]`),
				Message: "output type widened: null added", Witness: json.RawMessage(`{"plan":null}`)},
		},
	}
	return r
}

func emptyReport() *diff.Report {
	return &diff.Report{
		Level:   diff.LevelNone,
		Counts:  map[string]int{"safe": 0, "facade": 0, "breaking": 0},
		Old:     diff.Side{Source: "a.json", Fingerprint: "aa"},
		New:     diff.Side{Source: "b.json", Fingerprint: "aa"},
		Changes: []diff.Change{},
	}
}

func testOptions() Options {
	return Options{FailOn: diff.Breaking, Version: "v1.2.3", Rules: testCatalog()}
}

// golden compares got with testdata/golden/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

// visibleANSI makes escape sequences readable in golden files.
func visibleANSI(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\x1b"), []byte("␛")) }

func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		format string
		rep    func() *diff.Report
		opts   func() Options
		post   func([]byte) []byte
	}{
		{"rich.txt", "text", richReport, testOptions, nil},
		{"rich.styled.txt", "text", richReport, func() Options { o := testOptions(); o.Color = true; return o }, visibleANSI},
		{"rich.json", "json", richReport, testOptions, nil},
		{"rich.md", "markdown", richReport, testOptions, nil},
		{"rich.github.txt", "github", richReport, testOptions, nil},
		{"rich.junit.xml", "junit", richReport, testOptions, nil},
		{"rich.sarif.json", "sarif", richReport, testOptions, nil},
		{"rich.failon-never.txt", "text", richReport, func() Options { o := testOptions(); o.FailOn = Never; return o }, nil},
		{"empty.txt", "text", emptyReport, testOptions, nil},
		{"empty.json", "json", emptyReport, testOptions, nil},
		{"empty.md", "markdown", emptyReport, testOptions, nil},
		{"empty.junit.xml", "junit", emptyReport, testOptions, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tt.format, tt.rep(), tt.opts()); err != nil {
				t.Fatal(err)
			}
			got := b.Bytes()
			if tt.post != nil {
				got = tt.post(got)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestRulesGolden(t *testing.T) {
	t.Parallel()
	for _, f := range RulesFormats() {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderRules(&b, f, testRuleCatalog(), Options{}); err != nil {
				t.Fatal(err)
			}
			golden(t, "rules."+f, b.Bytes())
		})
	}
}

func TestPlainTextHasNoEscapes(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"text", "markdown", "github"} {
		var b bytes.Buffer
		if err := Render(&b, f, richReport(), testOptions()); err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexByte(b.Bytes(), 0x1b); i >= 0 {
			t.Errorf("%s output without color has an escape at byte %d", f, i)
		}
	}
	var b bytes.Buffer
	if err := RulesText(&b, testRuleCatalog(), Options{}); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(b.Bytes(), 0x1b) >= 0 {
		t.Error("rules text without color has escapes")
	}
	b.Reset()
	o := testOptions()
	o.Color = true
	if err := Text(&b, richReport(), o); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(b.Bytes(), 0x1b) < 0 {
		t.Error("text output with color has no escape")
	}
}

func TestUnknownFormat(t *testing.T) {
	t.Parallel()
	if err := Render(&bytes.Buffer{}, "yaml", emptyReport(), Options{}); err == nil || !strings.Contains(err.Error(), "sarif") {
		t.Errorf("Render(yaml) = %v, want an error listing the formats", err)
	}
	if err := RenderRules(&bytes.Buffer{}, "sarif", nil, Options{}); err == nil {
		t.Error("RenderRules(sarif) = nil, want an error")
	}
}

// TestJSONContract checks the docs/diff.md#output-and-exit-codes shape: exactly these members with
// these JSON types (extra members are allowed only where listed).
func TestJSONContract(t *testing.T) {
	t.Parallel()
	kind := func(v any) string {
		switch v.(type) {
		case nil:
			return "null"
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "bool"
		case []any:
			return "array"
		case map[string]any:
			return "object"
		}
		return "?"
	}
	shape := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = kind(v)
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		rep       *diff.Report
		wantLevel string
	}{{"rich", richReport(), "breaking"}, {"empty", emptyReport(), "none"}} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := JSON(&b, tt.rep, testOptions()); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(b.Bytes(), []byte("}\n")) || !bytes.HasPrefix(b.Bytes(), []byte("{\n  \"")) {
				t.Errorf("not indented with a trailing newline:\n%s", b.String())
			}
			var top map[string]any
			if err := json.Unmarshal(b.Bytes(), &top); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"level": "string", "counts": "object", "old": "object", "new": "object", "changes": "array", "gate": "object"}
			if d := cmp.Diff(want, shape(top)); d != "" {
				t.Errorf("top level mismatch (-want +got):\n%s", d)
			}
			if top["level"] != tt.wantLevel {
				t.Errorf("level = %v, want %s", top["level"], tt.wantLevel)
			}
			if d := cmp.Diff(map[string]string{"safe": "number", "facade": "number", "breaking": "number"}, shape(top["counts"].(map[string]any))); d != "" {
				t.Errorf("counts mismatch (-want +got):\n%s", d)
			}
			for _, side := range []string{"old", "new"} {
				if d := cmp.Diff(map[string]string{"source": "string", "fingerprint": "string"}, shape(top[side].(map[string]any))); d != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", side, d)
				}
			}
			required := []string{"rule", "level", "direction", "tool", "path", "old", "new", "message", "witness", "facade", "notice"}
			extra := map[string]string{"undecided": "bool", "reason": "string", "covered": "bool", "ignored": "bool", "ignoreReason": "string", "noWitness": "string", "ruleBug": "bool"}
			changes := top["changes"].([]any)
			if len(changes) != len(tt.rep.Changes) {
				t.Fatalf("%d changes, want %d", len(changes), len(tt.rep.Changes))
			}
			for i, c := range changes {
				m := c.(map[string]any)
				for _, k := range required {
					if _, ok := m[k]; !ok {
						t.Errorf("changes[%d] has no %q", i, k)
					}
				}
				for k, v := range m {
					if slicesContains(required, k) {
						continue
					}
					if want, ok := extra[k]; !ok || kind(v) != want {
						t.Errorf("changes[%d].%s is an unexpected member (%s)", i, k, kind(v))
					}
				}
				for _, k := range []string{"rule", "level", "direction", "tool", "path", "message"} {
					if kind(m[k]) != "string" {
						t.Errorf("changes[%d].%s is %s, want string", i, k, kind(m[k]))
					}
				}
				for _, k := range []string{"facade", "notice"} {
					if k2 := kind(m[k]); k2 != "null" && k2 != map[string]string{"facade": "object", "notice": "string"}[k] {
						t.Errorf("changes[%d].%s is %s", i, k, k2)
					}
				}
			}
		})
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestFails(t *testing.T) {
	t.Parallel()
	// richReport: gate level breaking (the ignored breaking finding does
	// not count, the others do).
	onlyFacade := func(covered bool) *diff.Report {
		return &diff.Report{Level: diff.Facade, Changes: []diff.Change{{Rule: "x", Level: diff.Facade, Covered: covered}}}
	}
	onlyIgnored := &diff.Report{Level: diff.Breaking, Changes: []diff.Change{{Rule: "x", Level: diff.Breaking, Ignored: true}}}
	tests := []struct {
		name   string
		rep    *diff.Report
		failOn diff.Level
		want   bool
	}{
		{"rich/breaking", richReport(), diff.Breaking, true},
		{"rich/default", richReport(), diff.LevelNone, true},
		{"rich/never", richReport(), Never, false},
		{"empty/safe", emptyReport(), diff.Safe, false},
		{"facade/breaking", onlyFacade(false), diff.Breaking, false},
		{"facade/facade", onlyFacade(false), diff.Facade, true},
		{"covered/facade", onlyFacade(true), diff.Facade, false},
		{"covered/safe", onlyFacade(true), diff.Safe, true},
		{"ignored/safe", onlyIgnored, diff.Safe, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fails(tt.rep, Options{FailOn: tt.failOn}); got != tt.want {
				t.Errorf("Fails = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseFailOn(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"safe", "facade", "breaking", "never"} {
		l, err := ParseFailOn(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := FailOnString(l); got != s {
			t.Errorf("FailOnString(ParseFailOn(%q)) = %q", s, got)
		}
	}
	if _, err := ParseFailOn("none"); err == nil {
		t.Error("ParseFailOn(none) = nil error")
	}
}

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50% off", "50%25 off", "50%25 off"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"t /p:q,r", "t /p:q,r", "t /p%3Aq%2Cr"},
		{"%0A", "%250A", "%250A"},
	}
	for _, tt := range tests {
		if got := ghData(tt.in); got != tt.data {
			t.Errorf("ghData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := ghProperty(tt.in); got != tt.prop {
			t.Errorf("ghProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
	// Every line of the rendered output is one command or the summary.
	var b bytes.Buffer
	if err := GitHub(&b, richReport(), testOptions()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var cmds []string
	for _, l := range lines[:len(lines)-1] {
		cmds = append(cmds, strings.SplitN(l, " ", 2)[0])
	}
	// Ordered as the text format: tools by severity, then findings by
	// severity; ignored and plain safe findings get no annotation.
	want := []string{"::error", "::error", "::error", "::warning", "::notice", "::notice"}
	if d := cmp.Diff(want, cmds); d != "" {
		t.Errorf("commands mismatch (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "mcpctl diff: level breaking") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func TestJUnitParses(t *testing.T) {
	t.Parallel()
	type failure struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name     string    `xml:"name,attr"`
		Failures []failure `xml:"failure"`
	}
	type doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	tests := []struct {
		failOn       diff.Level
		wantFailures map[string][]string // tool → failing rules
	}{
		{diff.Breaking, map[string][]string{
			"get_me":      {"output-type-widened"},
			"list_issues": {"input-enum-value-removed"},
			"push_files":  {"input-undecided"},
		}},
		{diff.Facade, map[string][]string{
			"get_me":      {"output-type-widened"},
			"list_issues": {"input-enum-value-removed"},
			"push_files":  {"input-undecided"},
			"search_code": {"input-property-renamed"},
		}},
		{diff.Safe, map[string][]string{
			"get_me":        {"output-type-widened"},
			"list_issues":   {"input-enum-value-removed", "input-max-raised"},
			"push_files":    {"input-undecided"},
			"search_code":   {"input-property-renamed"},
			"get_issue":     {"input-required-with-default"},
			"create_issue":  {"tool-description-changed"},
			"add_sub_issue": {"tool-added"},
		}},
		{Never, map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(FailOnString(tt.failOn), func(t *testing.T) {
			var b bytes.Buffer
			o := testOptions()
			o.FailOn = tt.failOn
			if err := JUnit(&b, richReport(), o); err != nil {
				t.Fatal(err)
			}
			var d doc
			if err := xml.Unmarshal(b.Bytes(), &d); err != nil {
				t.Fatalf("junit output does not parse: %v\n%s", err, b.String())
			}
			got := map[string][]string{}
			ncases := 0
			for _, s := range d.Suites {
				for _, c := range s.Cases {
					ncases++
					for _, f := range c.Failures {
						got[c.Name] = append(got[c.Name], f.Type)
					}
				}
			}
			if dd := cmp.Diff(tt.wantFailures, got); dd != "" {
				t.Errorf("failures mismatch (-want +got):\n%s", dd)
			}
			if ncases != 7 || d.Tests != 7 || d.Failures != len(tt.wantFailures) {
				t.Errorf("tests=%d failures=%d cases=%d, want 7, %d, 7", d.Tests, d.Failures, ncases, len(tt.wantFailures))
			}
		})
	}
}

func TestSARIFParses(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := SARIF(&b, richReport(), testOptions()); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name, Version, InformationURI string
					Rules                         []struct {
						ID                   string
						ShortDescription     struct{ Text string }
						DefaultConfiguration struct{ Level string }
						Properties           struct{ Tags []string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					LogicalLocations []struct{ Name, FullyQualifiedName, Kind string }
				}
				Suppressions []struct{ Kind, Justification string }
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("version %q, schema %q, %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "mcpctl" || run.Tool.Driver.Version != "v1.2.3" || run.Tool.Driver.InformationURI == "" {
		t.Errorf("driver %+v", run.Tool.Driver)
	}
	cat := testCatalog()
	if len(run.Tool.Driver.Rules) != len(cat) {
		t.Fatalf("%d rules, want %d", len(run.Tool.Driver.Rules), len(cat))
	}
	wantLevel := map[string]string{"breaking": "error", "facade": "warning", "safe": "note"}
	for i, r := range run.Tool.Driver.Rules {
		if r.ID != string(cat[i].ID) || r.ShortDescription.Text != cat[i].Purpose || r.DefaultConfiguration.Level != wantLevel[string(cat[i].Level)] {
			t.Errorf("rule %d = %+v, want %+v", i, r, cat[i])
		}
	}
	rep := richReport()
	if len(run.Results) != len(rep.Changes) {
		t.Fatalf("%d results, want %d", len(run.Results), len(rep.Changes))
	}
	var got []string
	for i, res := range run.Results {
		c := rep.Changes[i]
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID || res.RuleID != c.Rule {
			t.Errorf("result %d: ruleId %s, ruleIndex %d", i, res.RuleID, res.RuleIndex)
		}
		ll := res.Locations[0].LogicalLocations[0]
		got = append(got, res.Level+" "+ll.FullyQualifiedName+" "+strings.Join(func() []string {
			var s []string
			for _, x := range res.Suppressions {
				s = append(s, x.Kind)
			}
			return s
		}(), ","))
		if ll.Name != c.Tool || res.Message.Text == "" {
			t.Errorf("result %d: location %+v, message %q", i, ll, res.Message.Text)
		}
	}
	want := []string{
		"note add_sub_issue ",
		"note create_issue/description ",
		"error list_issues/inputSchema/properties/state/enum ",
		"error list_issues/inputSchema/properties/sort external",
		"note list_issues/inputSchema/properties/perPage/maximum ",
		"warning search_code/inputSchema/properties/q ",
		"note get_issue/inputSchema/required ",
		"error push_files/inputSchema/properties/files/items/oneOf ",
		"error get_me/outputSchema/properties/plan/type ",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results mismatch (-want +got):\n%s", d)
	}
}

// A finding with several notices (one per line in Change.Notice) shows each
// on its own "notice:" line.
func TestTextNoticePerLine(t *testing.T) {
	t.Parallel()
	r := richReport()
	n := "first notice\nsecond notice"
	r.Changes[0].Notice = &n
	var b bytes.Buffer
	if err := Text(&b, r, testOptions()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "notice:  first notice\n") || !strings.Contains(out, "notice:  second notice\n") {
		t.Errorf("notices not on their own lines:\n%s", out)
	}
}

// Every human format shows a decided finding's reason (why a removal has
// no facade).
func TestShowsReason(t *testing.T) {
	t.Parallel()
	r := emptyReport()
	r.Level = diff.Breaking
	r.Counts["breaking"] = 1
	r.Changes = []diff.Change{{Rule: "tool-removed", Level: diff.Breaking, Direction: diff.ToolD, Tool: "search_docs",
		Old: json.RawMessage(`"search_docs"`), Message: "tool removed: every call to it fails",
		Reason: "no facade: no new tool accepts its arguments", NoWitness: "any call to the tool is a witness"}}
	for _, f := range []string{"text", "markdown", "github", "junit", "sarif"} {
		var b bytes.Buffer
		if err := Render(&b, f, r, testOptions()); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, "no facade: no new tool accepts its arguments") {
			t.Errorf("%s: reason of a decided finding not shown:\n%s", f, out)
		}
	}
}

// TestIssue10Item13ValuesCutAtWidth: old/new values were cut at a fixed 160
// characters whatever the terminal; with Options.Width the old: and new:
// lines fit the width (never under 40 characters of value), and 0 keeps 160.
func TestIssue10Item13ValuesCutAtWidth(t *testing.T) {
	t.Parallel()
	r := emptyReport()
	long := `"` + strings.Repeat("x", 400) + `"`
	r.Changes = []diff.Change{{Rule: "tool-description-changed", Level: diff.Safe, Direction: diff.ToolD, Tool: "t", Path: "/description",
		Old: json.RawMessage(long), New: json.RawMessage(long)}}
	for _, tc := range []struct{ width, want int }{{0, 15 + 160}, {100, 100}, {250, 250}, {30, 15 + 40}} {
		var b bytes.Buffer
		o := testOptions()
		o.Width = tc.width
		if err := Text(&b, r, o); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.Contains(line, "old:") || strings.Contains(line, "new:") {
				if got := len([]rune(line)); got != tc.want {
					t.Errorf("width %d: %d-column line, want %d: %q", tc.width, got, tc.want, line)
				}
			}
		}
	}
}
