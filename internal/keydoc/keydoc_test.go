package keydoc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var sample = Key{Type: Object, Keys: []Key{
	{Name: "a", Type: String, Required: true, Doc: "A."},
	{Name: "old", Type: Date, Deprecated: "new", Doc: "Old."},
	{Name: "new", Type: Date, Doc: "New."},
	{Name: "list", Type: Array, Includes: true, Items: &Key{Type: Object, Keys: []Key{{Name: "x", Type: Duration, Default: "30s", Doc: "X."}}}},
}}

// TestNames leaves deprecated keys out of the names loaders accept without
// a warning.
func TestNames(t *testing.T) {
	t.Parallel()
	if d := cmp.Diff([]string{"a", "new", "list"}, Names(sample.Keys)); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// TestSchemaIncludes: below an Includes key every value may be {$file}.
func TestSchemaIncludes(t *testing.T) {
	t.Parallel()
	s := Schema("id", "t", sample)
	if s["required"].([]any)[0] != "a" || s["additionalProperties"] != false {
		t.Errorf("root schema: %v", s)
	}
	list := s["properties"].(map[string]any)["list"].(map[string]any)
	if _, ok := list["anyOf"]; !ok {
		t.Errorf("list does not allow an include: %v", list)
	}
	if _, ok := s["$defs"].(map[string]any)["include"]; !ok {
		t.Error("no $defs/include")
	}
}

// TestMarkdown writes one row per key path, with the default and the
// deprecation.
func TestMarkdown(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	if err := Markdown(&b, sample); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| `a` | string |  | Required. A. |\n",
		"| `old` | date |  | Deprecated: write `new` instead. Old. |\n",
		"| `list[].x` | duration | `30s` | X. |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
