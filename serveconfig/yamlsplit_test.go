package serveconfig

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// cutCases are config documents whose tools list could be cut wrongly:
// cut says whether it must be cut (parsed in pieces) at all.
var cutCases = []struct {
	name, doc string
	cut       bool
}{
	{"generated", manyToolsConfig(7), true},
	{"entries at the margin", "server: {name: s}\ntools:\n- name: a\n  x: [1,\n    2]\n- name: b\n  y: |\n    text\n    - not an entry\ngate: {}\n", true},
	{"comments and blank lines", "# head\ntools: # the list\n\n  # first\n  - name: a\n\n# between\n  - name: b\n    d: >\n      folded\n\n\n  - name: c\n    k: |+\n      kept\n\n\nrecord: {}\n", true},
	{"block scalar with entry-like lines", "tools:\n  - name: a\n    d: |\n      - one\n       - two\n  - name: b\n", true},
	{"anchor used by a later entry", "tools:\n  - name: a\n    s: &s {type: string}\n  - name: b\n    s: *s\n", false},
	{"anchor before the list", "x: &s {type: string}\ntools:\n  - name: a\n    s: *s\n", false},
	{"quoted value across a cut", "tools:\n  - name: \"a\n  - b\"\n  - name: c\n", false},
	{"flow value across a cut", "tools:\n  - [a,\n  - b]\n  - name: c\n", false},
	{"list ended by an indented line", "tools:\n  - name: a\n x: 1\n", false},
	{"two tools keys", "tools:\n  - name: a\ntools:\n  - name: b\n", false},
	{"documents", "tools:\n  - name: a\n---\ntools:\n  - name: b\n", false},
	{"CR line ends", "tools:\r\n  - name: a\r\n  - name: b\r\n", false},
	{"flow list", "tools: [{name: a}, {name: b}]\n", false},
	{"anchored list", "tools: &t\n  - name: a\n", false},
	{"syntax error in an entry", "tools:\n  - name: a\n  - name: [b\n  - name: c\n", false},
	{"nested tools key", "server:\n  tools:\n    - a\ntools:\n  - name: b\n", true},
}

// dumpNodes writes n and the nodes under it, comments aside, one a line.
func dumpNodes(b *strings.Builder, n *yaml.Node, depth int) {
	fmt.Fprintf(b, "%*s%d %d %q %q %q %d:%d", depth, "", n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Line, n.Column)
	if n.Alias != nil {
		fmt.Fprintf(b, " -> %d:%d", n.Alias.Line, n.Alias.Column)
	}
	b.WriteByte('\n')
	for _, k := range n.Content {
		dumpNodes(b, k, depth+1)
	}
}

func dumpYAML(doc *yaml.Node, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	dumpNodes(&b, doc, 0)
	return b.String()
}

// TestParseConfigYAMLSameAsWhole (issue 8 item 9: a 10,000-tool config
// parses in under 2 s): a tools list parsed in pieces on every core gives
// the nodes, places and errors of parsing the document whole, and the
// usual shape is indeed cut.
func TestParseConfigYAMLSameAsWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range cutCases {
		t.Run(tc.name, func(t *testing.T) {
			var whole yaml.Node
			want := dumpYAML(&whole, yaml.Unmarshal([]byte(tc.doc), &whole))
			for _, lines := range []int{1, 3, pieceLines} {
				if got := dumpYAML(parseConfigYAMLIn([]byte(tc.doc), lines)); got != want {
					t.Fatalf("pieces of %d lines: mismatch (-want +got):\n%s", lines, cmp.Diff(want, got))
				}
			}
			cut, ok := cutToolsList([]byte(tc.doc), 1)
			if ok {
				_, ok = cut.parse()
			}
			if ok != tc.cut {
				t.Errorf("cut in pieces: %v, want %v", ok, tc.cut)
			}
		})
	}
}

// FuzzParseConfigYAML: whatever the document, parsing its tools list in
// pieces gives what parsing it whole gives.
func FuzzParseConfigYAML(f *testing.F) {
	for _, tc := range cutCases {
		f.Add(tc.doc, 1)
	}
	f.Fuzz(func(t *testing.T, doc string, lines int) {
		var whole yaml.Node
		want := dumpYAML(&whole, yaml.Unmarshal([]byte(doc), &whole))
		if got := dumpYAML(parseConfigYAMLIn([]byte(doc), max(1, lines%8))); got != want {
			t.Fatalf("mismatch (-want +got):\n%s", cmp.Diff(want, got))
		}
	})
}
