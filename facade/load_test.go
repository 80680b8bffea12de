package facade

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want File
	}{
		{
			name: "yaml",
			in: `search_documents:
  rename:   {q: query}
  defaults: {limit: 20}
  coerce:   {limit: integer}
  values:   {confidence: {low: LOW, high: HIGH}}
  aliases:
    - search_docs
    - {name: list_workflows, inject: {method: list_workflows}, rename: {perPage: per_page}}
`,
			want: File{"search_documents": {
				Rename:   map[string]string{"q": "query"},
				Defaults: map[string]any{"limit": 20},
				Coerce:   map[string]string{"limit": "integer"},
				Values:   map[string]map[string]any{"confidence": {"low": "LOW", "high": "HIGH"}},
				Aliases: []Alias{{Name: "search_docs"}, {Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"},
					Rename: map[string]string{"perPage": "per_page"}}},
			}},
		},
		{
			name: "json",
			in:   `{"search_code": {"rename": {"q": "query"}, "aliases": ["code_search"]}}`,
			want: File{"search_code": {Rename: map[string]string{"q": "query"}, Aliases: []Alias{{Name: "code_search"}}}},
		},
		{
			name: "serve config",
			in: `server: {name: docs, version: 1.4.0}
tools:
  - name: search_documents
    inputSchema: {type: object}
    facade:
      aliases: [search_docs]
      rename: {q: query}
  - name: other
    inputSchema: {type: object}
`,
			want: File{"search_documents": {Rename: map[string]string{"q": "query"}, Aliases: []Alias{{Name: "search_docs"}}}},
		},
		{name: "empty", in: "", want: File{}},
		{name: "null", in: "# nothing yet\n", want: File{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"unknown block key", "t:\n  rename: {a: b}\n  renames: {c: d}\n", `f.yaml:3:3: facade of "t": unknown key "renames" (want rename, defaults, coerce, values, aliases)`},
		{"unknown alias key", "t:\n  aliases:\n    - {name: x, injct: {a: 1}}\n", `f.yaml:3:17: facade of "t": alias: unknown key "injct" (want name, inject, rename, defaults, values)`},
		{"alias without name", "t:\n  aliases:\n    - {inject: {a: 1}}\n", `f.yaml:3:7: facade of "t": an alias needs a name`},
		{"bad coerce", "t:\n  coerce: {limit: int}\n", `f.yaml:2:19: facade of "t": coerce "limit": unknown type "int" (want string, number, integer, boolean, array)`},
		{"duplicate tool", "t: {}\nt: {}\n", `f.yaml:2:1: a facade file (tool name → facade block): duplicate key "t" (first at line 1)`},
		{"duplicate json key", `{"t": {"rename": {"a": "b", "a": "c"}}}`, `f.yaml:1:29: facade of "t": rename: duplicate key "a" (first at line 1)`},
		{"block not a mapping", "t: [rename]\n", `f.yaml:1:4: facade of "t" must be a mapping`},
		{"root not a mapping", "- t\n", `f.yaml:1:1: a facade file (tool name → facade block) must be a mapping`},
		{"rename to a list", "t:\n  rename: {a: [b]}\n", `f.yaml:2:15: facade of "t": rename "a": the new name must be a string`},
		{"yaml syntax", "t:\n  rename: {a: b\n", `f.yaml: line 1: did not find expected ',' or '}'`},
		{"invalid pointer key", "t:\n  defaults: {/page~2: 1}\n", `f.yaml:2:14: facade of "t": defaults: key "/page~2": "~" must be followed by 0 or 1 in a JSON Pointer (RFC 6901)`},
		{"invalid pointer rename target", "t:\n  rename: {status: /filter/~x}\n", `f.yaml:2:20: facade of "t": rename "status": key "/filter/~x": "~" must be followed by 0 or 1 in a JSON Pointer (RFC 6901)`},
		{"invalid pointer in an alias", "t:\n  aliases:\n    - {name: x, values: {/a~: {b: c}}}\n", `f.yaml:3:26: facade of "t": alias values: key "/a~": "~" must be followed by 0 or 1 in a JSON Pointer (RFC 6901)`},
		{"alias rename to a list", "t:\n  aliases:\n    - {name: x, rename: {a: [b]}}\n", `f.yaml:3:29: facade of "t": alias rename "a": the new name must be a string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			if d := cmp.Diff(tt.want, err.Error()); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "facades.yaml")
	if err := os.WriteFile(path, []byte("search_code: {rename: {q: query}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(File{"search_code": {Rename: map[string]string{"q": "query"}}}, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	_, err = LoadFile(filepath.Join(dir, "missing.yaml"))
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrInvalid and ErrNotExist", err)
	}
}

func TestParseBlockMatchesParse(t *testing.T) {
	t.Parallel()
	// One block, parsed alone from its node, gives the block and the error
	// Parse gives for it inside a facade file.
	for _, in := range []string{
		"t:\n  rename: {q: query}\n  aliases: [old, {name: x, inject: {m: 1}}]\n",
		"t:\n  renam: {q: query}\n",
		"t:\n  coerce: {limit: int}\n",
		"t:\n  aliases:\n    - {inject: {a: 1}}\n",
		"t: [rename]\n",
	} {
		wantFile, wantErr := Parse("f.yaml", []byte(in))
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(in), &doc); err != nil {
			t.Fatal(err)
		}
		got, gotErr := ParseBlock("f.yaml", doc.Content[0].Content[1], "t")
		if wantErr != nil || gotErr != nil {
			if wantErr == nil || gotErr == nil || wantErr.Error() != gotErr.Error() {
				t.Errorf("%q: error %v, want %v", in, gotErr, wantErr)
			}
			if gotErr != nil && !errors.Is(gotErr, ErrInvalid) {
				t.Errorf("%q: error does not wrap ErrInvalid", in)
			}
			continue
		}
		if d := cmp.Diff(wantFile["t"], got); d != "" {
			t.Errorf("%q: mismatch (-want +got):\n%s", in, d)
		}
	}
}
