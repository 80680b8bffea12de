package facade

import (
	"fmt"
	"strings"
	"testing"
)

// TestHardening02AliasBomb: seven levels of &a [*b,*b,…] in a facade file
// (as a block's defaults, values and aliases) are refused (yaml.v3's
// aliasing bound where a node is decoded; the loader never expands an
// alias itself), not expanded into 10^7 values.
func TestHardening02AliasBomb(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("search:\n  defaults:\n    x0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&b, "    x%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	for _, key := range []string{"defaults", "values", "aliases"} {
		text := strings.Replace(b.String(), "defaults", key, 1)
		if _, err := Parse("bomb.yaml", []byte(text)); err == nil {
			t.Errorf("%s: an alias bomb parsed", key)
		}
	}
}
