package source_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/source"
)

// TestServeConfigAsSource: a serve config (YAML or JSON, with $file
// includes) is a source: its served tools, without serve-only members, and
// one fingerprint for both forms. source reads it through package serveconfig's
// parser directly (it was reached through a function variable serve set in
// init, issue 11).
func TestServeConfigAsSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"schemas/a.json": `{"type":"object","properties":{"q":{"type":"string"}}}`,
		"c.yaml":         "server: {name: x}\ntools:\n  - name: b\n    inputSchema: {type: object}\n  - name: a\n    inputSchema: {$file: schemas/a.json}\n    handler: {static: {text: x}}\n",
		"c.json":         `{"server":{"name":"x"},"tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"$file":"schemas/a.json"},"handler":{"static":{"text":"x"}}}]}`,
	})
	var fps []string
	for _, p := range []string{filepath.Join(dir, "c.yaml"), filepath.Join(dir, "c.json")} {
		set, err := source.Load(context.Background(), p, source.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := strings.Join(set.Names(), ","); got != "a,b" {
			t.Errorf("%s: tools %s", p, got)
		}
		if strings.Contains(string(set.Canonical(false)), "handler") {
			t.Errorf("%s: serve-only members leaked into the tool set", p)
		}
		fps = append(fps, set.Fingerprint())
	}
	if fps[0] != fps[1] {
		t.Error("the YAML and JSON forms of one config differ")
	}
}
