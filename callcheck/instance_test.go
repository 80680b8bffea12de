package callcheck_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// TestInstanceExamplesValidate builds the self-healing example (the one
// generator, internal/instance, through callcheck.Example) for every
// inputSchema and outputSchema of testdata/realdata and of diff's per-rule
// fixtures, and checks each with the validator: every schema that accepts
// something gets an example it accepts. None of the corpus accepts
// nothing, so none is skipped; a schema that does not compile has no
// validator to check an example with (counted, none today).
func TestInstanceExamplesValidate(t *testing.T) {
	t.Parallel()
	var n, uncompiled int
	for _, dir := range []string{"../testdata/realdata", "../diff/testdata/rules"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return err
			}
			for _, sc := range toolSchemas(t, path) {
				n++
				if !checkExample(t, sc) {
					uncompiled++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d schemas, %d do not compile", n, uncompiled)
	if n < 100 {
		t.Fatalf("only %d schemas found: is the corpus in place?", n)
	}
}

type toolSchema struct {
	where string // file, tool and member
	s     *canon.Value
}

// toolSchemas returns the inputSchema and outputSchema of every tool of
// the tools/list result (or snapshot) in path; none for other files.
func toolSchemas(t *testing.T, path string) []toolSchema {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tools := v.Get("tools")
	if tools == nil || tools.Kind != canon.Array {
		return nil
	}
	var out []toolSchema
	for i := range tools.Items {
		tool := &tools.Items[i]
		name := ""
		if nv := tool.Get("name"); nv != nil {
			name = nv.Str
		}
		for _, m := range []string{"inputSchema", "outputSchema"} {
			if s := tool.Get(m); s != nil {
				out = append(out, toolSchema{where: filepath.ToSlash(path) + " " + name + " " + m, s: s})
			}
		}
	}
	return out
}

// checkExample fails unless sc gets an example its validator accepts;
// false when sc does not compile (lint's and diff's finding, not an
// example's).
func checkExample(t *testing.T, sc toolSchema) bool {
	t.Helper()
	c, err := schema.Compile(sc.s)
	if err != nil {
		return false
	}
	ex, ok := callcheck.Example(c, sc.s, nil)
	if !ok {
		t.Errorf("%s: no example", sc.where)
		return true
	}
	if err := c.Validate(ex); err != nil {
		t.Errorf("%s: example %v does not validate: %v", sc.where, ex, err)
	}
	return true
}
