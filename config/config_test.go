package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
)

func catalog() []diff.Rule {
	return []diff.Rule{
		{ID: "input-property-removed", Kind: "diff", Level: "breaking"},
		{ID: "tool-description-changed", Kind: "diff", Level: "safe"},
	}
}

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestParse(t *testing.T) {
	t.Parallel()
	in := `# policy
rules:
  tool-description-changed: facade
ignore:
  - rule: input-property-removed
    tool: list_issues
    path: /properties/sort
    reason: never honoured by the server
    expires: 2027-01-31
  - {rule: input-property-removed, tool: legacy, reason: retired}
open-content: strict
`
	got, err := Parse(".mcpctl.yaml", []byte(in), catalog())
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Path:   ".mcpctl.yaml",
		Levels: map[string]diff.Level{"tool-description-changed": diff.Facade},
		Ignores: []diff.Ignore{
			{Rule: "input-property-removed", Tool: "list_issues", Path: "/properties/sort", Reason: "never honoured by the server", Expires: day("2027-01-31")},
			{Rule: "input-property-removed", Tool: "legacy", Reason: "retired"},
		},
		OpenContent: OpenContentStrict,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}

	var o diff.Options
	got.Apply(&o)
	wantOpts := diff.Options{StrictOpenContent: true, Levels: want.Levels, Ignores: want.Ignores}
	if d := cmp.Diff(wantOpts, o); d != "" {
		t.Errorf("Apply mismatch (-want +got):\n%s", d)
	}

	// The ignore holds until its expiry date and stops on it.
	if exp := got.Expired(day("2027-01-31").Add(-time.Second)); len(exp) != 0 {
		t.Errorf("expired the day before: %v", exp)
	}
	if exp := got.Expired(day("2027-01-31")); len(exp) != 1 || exp[0].Tool != "list_issues" {
		t.Errorf("Expired on the date = %v, want the list_issues ignore", exp)
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "# nothing\n", "rules:\nignore:\n"} {
		got, err := Parse("c.yaml", []byte(in), nil)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		var o diff.Options
		got.Apply(&o)
		if d := cmp.Diff(diff.Options{}, o); d != "" {
			t.Errorf("%q: mismatch (-want +got):\n%s", in, d)
		}
	}
}

func TestLenientDoesNotClearFlag(t *testing.T) {
	t.Parallel()
	c, err := Parse("c.yaml", []byte("open-content: lenient\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := diff.Options{StrictOpenContent: true}
	c.Apply(&o)
	if !o.StrictOpenContent {
		t.Error("lenient config cleared --strict-open-content")
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"unknown key", "rules: {}\nignores: []\n", `c.yaml:2:1: unknown key "ignores" (want rules, ignore, open-content, lint)`},
		{"unknown rule", "rules:\n  input-property-removd: safe\n", `c.yaml:2:3: rules: unknown rule id "input-property-removd" (see mcpctl rules)`},
		{"unknown level", "rules:\n  input-property-removed: warn\n", `c.yaml:2:27: rules: input-property-removed: unknown level "warn" (want safe, facade or breaking)`},
		{"level none", "rules:\n  input-property-removed: none\n", `c.yaml:2:27: rules: input-property-removed: unknown level "none" (want safe, facade or breaking)`},
		{"ignore unknown rule", "ignore:\n  - {rule: nope, tool: t, reason: r}\n", `c.yaml:2:12: ignore[0]: rule: unknown rule id "nope" (see mcpctl rules)`},
		{"ignore no reason", "ignore:\n  - {rule: input-property-removed, tool: t}\n", `c.yaml:2:5: ignore[0]: reason is required`},
		{"ignore empty reason", "ignore:\n  - {rule: input-property-removed, tool: t, reason: ' '}\n", `c.yaml:2:53: ignore[0]: reason must not be empty`},
		{"ignore no tool", "ignore:\n  - {rule: input-property-removed, reason: r}\n", `c.yaml:2:5: ignore[0]: tool is required`},
		{"ignore bad date", "ignore:\n  - {rule: input-property-removed, tool: t, reason: r, expires: 31/01/2027}\n", `c.yaml:2:65: ignore[0]: expires: want a date (2027-01-31) or an RFC 3339 time, got "31/01/2027"`},
		{"ignore unknown key", "ignore:\n  - {rule: input-property-removed, tool: t, reason: r, expiry: 2027-01-31}\n", `c.yaml:2:56: ignore[0]: unknown key "expiry" (want rule, tool, path, reason, expires)`},
		{"ignore bad path", "ignore:\n  - {rule: input-property-removed, tool: t, reason: r, path: properties/x}\n", `c.yaml:2:62: ignore[0]: path "properties/x" is not a JSON Pointer (RFC 6901: empty or starting with /)`},
		{"ignore not a list", "ignore: {rule: x}\n", `c.yaml:1:9: ignore must be a list of {rule, tool, path, reason, expires}`},
		{"open content", "open-content: loose\n", `c.yaml:1:15: open-content: unknown policy "loose" (want strict or lenient)`},
		{"duplicate", "rules: {}\nrules: {}\n", `c.yaml:2:1: the configuration: duplicate key "rules" (first at line 1)`},
		{"not a mapping", "- rules\n", `c.yaml:1:1: the configuration must be a mapping`},
		{"syntax", "rules: [\n", `c.yaml: line 1: did not find expected node content`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tt.in), catalog())
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			if d := cmp.Diff(tt.want, err.Error()); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// Nothing up to the filesystem root (assuming none above the temp dir).
	if p, err := Find(deep); err != nil || (p != "" && !isOutside(p, root)) {
		t.Fatalf("Find with no file = %q, %v", p, err)
	}
	want := filepath.Join(root, "a", FileName)
	if err := os.WriteFile(want, []byte("rules: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != want {
		t.Errorf("Find = %q, %v; want %q", got, err, want)
	}
	// The nearest one wins.
	nearer := filepath.Join(deep, FileName)
	if err := os.WriteFile(nearer, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Find(deep); got != nearer {
		t.Errorf("Find = %q, want %q", got, nearer)
	}
	// A folder named like the file is skipped.
	if err := os.Remove(nearer); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(nearer, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _ := Find(deep); got != want {
		t.Errorf("Find past a folder = %q, want %q", got, want)
	}
}

func isOutside(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator)
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte("open-content: strict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, nil)
	if err != nil || c.OpenContent != OpenContentStrict || c.Path != p {
		t.Errorf("Load = %+v, %v", c, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), nil); !errors.Is(err, ErrInvalid) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v", err)
	}
}
