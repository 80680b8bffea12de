package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	rulesBegin = "<!-- rules:begin -->\n"
	rulesEnd   = "<!-- rules:end -->"
)

// TestREADMERules fails when the README's rule table (between the
// rules:begin and rules:end markers) is not RulesMarkdown(Catalog()): the diff and the lint rules.
// Regenerate it with: go test ./report -run TestREADMERules -update
func TestREADMERules(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, rulesBegin)
	j := strings.Index(text, rulesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers", path, strings.TrimSpace(rulesBegin), rulesEnd)
	}
	var b bytes.Buffer
	if err := RulesMarkdown(&b, Catalog()); err != nil {
		t.Fatal(err)
	}
	want := b.String()
	got := text[i+len(rulesBegin) : j]
	if got == want {
		return
	}
	if *update {
		text = text[:i+len(rulesBegin)] + want + text[j:]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README rule table is stale; run go test ./report -run TestREADMERules -update\nmismatch (-want +got):\n%s", cmp.Diff(want, got))
}
