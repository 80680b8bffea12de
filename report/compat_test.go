package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/toolset"
)

// TestIssue12CompatibilityShownInTextAndMarkdown: `mcpctl diff
// --compatibility full` on an optional property added to a closed input
// schema printed the forward finding in text and markdown without saying
// that it fails forward, nor under which mode the diff was judged; only
// --format json had "compatibility". Both human formats now name the mode
// in their header and the direction on each finding.
func TestIssue12CompatibilityShownInTextAndMarkdown(t *testing.T) {
	t.Parallel()
	set := func(src, props string) *toolset.Set {
		s, err := toolset.Decode(src, []byte(`{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{`+props+`},"additionalProperties":false}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old, new := set("old.json", `"q":{"type":"string"}`), set("new.json", `"q":{"type":"string"},"limit":{"type":"integer"}`)
	r := diff.Compare(old, new, diff.Options{Compatibility: diff.Full})
	if len(r.Changes) == 0 {
		t.Fatal("no finding under compatibility full")
	}
	opts := testOptions()
	opts.Compatibility = diff.Full
	for format, want := range map[string][]string{
		"text":     {"compatibility: full", "[fails forward"},
		"markdown": {"Compatibility: **full**", "_fails forward"},
	} {
		var b bytes.Buffer
		if err := Render(&b, format, r, opts); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: %q missing:\n%s", format, w, b.String())
			}
		}
	}
}
