package config

import (
	"errors"
	"testing"
)

// FuzzParse: Parse never panics, and every error it returns is located
// configuration error (wraps ErrInvalid).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"rules: {input-property-removed: safe}\n",
		"ignore:\n  - {rule: input-property-removed, tool: t, reason: r, expires: 2027-01-31}\n",
		"open-content: strict\n",
		"ignores: []\n",
		"rules: [\n",
		"- a\n",
		"{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("c.yaml", data, catalog())
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if c == nil {
			t.Fatal("nil config without error")
		}
	})
}
