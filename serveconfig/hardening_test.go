package serveconfig

import (
	"strings"
	"testing"
)

// TestHardening02RecursiveAlias (found by FuzzServeConfig): an alias inside
// the value it names (y: &b [{e: {z: [*b]}}]) nested forever, its JSON
// Pointers growing with depth, until memory ran out. It is a located error
// now, and so is any nesting deeper than maxNesting.
func TestHardening02RecursiveAlias(t *testing.T) {
	t.Parallel()
	deep := "x: " + strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1) + "\ntools: []\n"
	for _, tc := range []struct{ config, want string }{
		{"y: &b [{e: {z: [*b, *b, *b]}}]\ntools: []\n", "c.yaml:1:17: /y/0/e/z/0/0/e/z/0: alias *b refers to a value that contains it"},
		{"y: &b {z: *b}\ntools: []\n", "c.yaml:1:11: /y/z/z: alias *b refers to a value that contains it"},
		{deep, "values nest deeper than 1000 levels"},
	} {
		_, err := ParseConfig("c.yaml", []byte(tc.config), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error saying %q", err, tc.want)
		}
	}
}
