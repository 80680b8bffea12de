package serveconfig

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/toolset"
)

// FuzzServeConfig: any config, with any include (YAML and JSON, named
// through $file, anchors and aliases, also of the include), parses or is a
// located input error, never a panic; and aliases never make it produce
// more values than aliasFactor per byte written plus the slack, so memory
// stays bounded by the input's size; and converting the tool entries side
// by side gives what converting them in order gives.
func FuzzServeConfig(f *testing.F) {
	f.Add(baseConfig, "type: object\n")
	f.Add("tools:\n  - name: a\n    inputSchema: {$file: inc.yaml}\n", "type: object\nproperties: {q: &s {type: string}, r: *s}\n")
	f.Add("tools:\n  - &t {name: a, inputSchema: {$file: inc.json}}\n  - *t\n", `{"type":"object"}`)
	f.Add("x: &a [{$file: inc.json}, {$file: inc.json}]\ny: &b [*a, *a, *a, *a]\ntools: [{name: a, _meta: {z: [*b, *b, *b]}}]\n", `{"type":"object","properties":{"a":{"type":"string"}}}`)
	f.Add("tools: [{name: a, inputSchema: {$file: inc.yaml}}]\n", aliasBomb("", "x"))
	f.Add("tools: [{name: a, inputSchema: {$file: inc.yaml}}]\n", "a: &a {$file: inc.yaml}\n")
	f.Add("tools: [{name: a, inputSchema: {type: object}, _meta: {n: 1e1000000000}}]\n", "")
	f.Fuzz(func(t *testing.T, config, include string) {
		read := func(p string) ([]byte, error) {
			switch {
			case strings.HasSuffix(p, "inc.yaml"):
				return []byte(include), nil
			case strings.HasSuffix(p, "inc.json"):
				return []byte(include), nil
			}
			return nil, fs.ErrNotExist
		}
		sameSideBySide(t, 1, "fuzz.yaml", []byte(config), read)
		cfg, err := ParseConfig("fuzz.yaml", []byte(config), read)
		if err != nil {
			if !errors.Is(err, toolset.ErrInput) {
				t.Fatalf("error not an input error: %v", err)
			}
			return
		}
		values := 0
		for _, tool := range cfg.Tools {
			values += countValues(&tool.Value)
		}
		// Every include is read once, and two distinct paths are possible.
		if limit := 2*aliasFactor*(len(config)+2*len(include)+3) + 3*aliasSlack; values > limit {
			t.Fatalf("%d values from %d+%d bytes: more than %d", values, len(config), len(include), limit)
		}
		if _, err := cfg.Set(); err != nil && !errors.Is(err, toolset.ErrInput) {
			t.Fatalf("Set: %v", err)
		}
	})
}
