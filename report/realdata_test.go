package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/toolset"
)

// realPair is github-mcp-server v0.8.0 → v0.11.0 (testdata/realdata): a
// required argument renamed (search_code q → query, facade), list_issues
// enum values changed and arguments removed (breaking), tools added (safe)
// and description changes (safe, with a notice).
func realPair(t *testing.T) *diff.Report {
	t.Helper()
	load := func(v string) *toolset.Set {
		path := "../testdata/realdata/github-mcp-server/" + v + ".json"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := toolset.Decode(path, data)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return diff.Compare(load("v0.8.0"), load("v0.11.0"), diff.Options{Now: now})
}

// TestGoldenRealData renders one real comparison in every format.
func TestGoldenRealData(t *testing.T) {
	t.Parallel()
	rep := realPair(t)
	opts := Options{FailOn: diff.Breaking, Version: "v1.2.3"}
	for _, f := range Formats() {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, f, rep, opts); err != nil {
				t.Fatal(err)
			}
			golden(t, "github-v0.8.0-v0.11.0."+f, b.Bytes())
			switch f {
			case "json", "sarif":
				if !json.Valid(b.Bytes()) {
					t.Errorf("%s output is not valid JSON", f)
				}
			case "junit":
				var v any
				if err := xml.Unmarshal(b.Bytes(), &v); err != nil {
					t.Errorf("junit output does not parse: %v", err)
				}
			}
		})
	}
	o := opts
	o.Color = true
	var b bytes.Buffer
	if err := Text(&b, rep, o); err != nil {
		t.Fatal(err)
	}
	golden(t, "github-v0.8.0-v0.11.0.styled.txt", visibleANSI(b.Bytes()))
}
