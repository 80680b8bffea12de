package yamlnode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc     string
		keys    []string
		wantErr string
	}{
		{"a: 1\nb: 2\n", []string{"a", "b"}, ""},
		{"{}", []string{}, ""},
		{"- a\n", nil, "1:1: the test must be a mapping"},
		{"a: 1\na: 2\n", nil, `2:1: the test: duplicate key "a" (first at line 1)`},
		{"? [x]\n: 1\n", nil, "1:3: the test: keys must be strings"},
	}
	for _, tt := range tests {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(tt.doc), &doc); err != nil {
			t.Fatal(err)
		}
		ps, err := Pairs(doc.Content[0], "the test")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.wantErr {
			t.Errorf("%q: error %q, want %q", tt.doc, gotErr, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		keys := []string{}
		for _, p := range ps {
			keys = append(keys, p[0].Value)
		}
		if d := cmp.Diff(tt.keys, keys); d != "" {
			t.Errorf("%q: mismatch (-want +got):\n%s", tt.doc, d)
		}
	}
}
