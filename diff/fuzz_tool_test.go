package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpctl/mcpctl/toolset"
)

// FuzzCompare: Compare never panics on readable input, comparing a set
// with itself finds nothing, and two runs give identical JSON.
func FuzzCompare(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "rules", "*"))
	for _, d := range dirs {
		o, err1 := os.ReadFile(filepath.Join(d, "old.json"))
		n, err2 := os.ReadFile(filepath.Join(d, "new.json"))
		if err1 == nil && err2 == nil {
			f.Add(o, n)
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := toolset.Decode("a", a)
		if err != nil {
			return
		}
		new, err := toolset.Decode("b", b)
		if err != nil {
			return
		}
		if r := Compare(old, old, Options{Now: fixtureNow}); len(r.Changes) != 0 {
			t.Fatalf("Compare(x, x) found %+v", r.Changes)
		}
		r1, _ := json.Marshal(Compare(old, new, Options{Now: fixtureNow}))
		r2, _ := json.Marshal(Compare(old, new, Options{Now: fixtureNow}))
		if string(r1) != string(r2) {
			t.Fatalf("two runs differ:\n%s\n%s", r1, r2)
		}
	})
}
