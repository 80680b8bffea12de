package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/diff"
)

// TestHardening02AliasBomb: seven levels of &a [*b,*b,…] in .mcpctl.yaml
// (as the ignore list) are refused, not expanded into 10^7 values: the
// loader walks nodes as written and never expands an alias itself.
func TestHardening02AliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("x0: &a0 [{rule: description-changed, reason: r}, {rule: description-changed, reason: r}]\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&b, "x%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	for _, doc := range []string{b.String(), b.String() + "ignore: *a7\n"} {
		if _, err := Parse(".mcpctl.yaml", []byte(doc), diff.Rules()); err == nil {
			t.Errorf("an alias bomb parsed:\n%s", doc)
		}
	}
}
