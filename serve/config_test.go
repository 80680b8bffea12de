package serve

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/toolset"
)

func TestParseConfigServedBytes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "schemas/search.json", `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number","minimum":1.0}},"required":["z"]}`)
	writeFile(t, dir, "schemas/out.yaml", "type: object\nproperties: {hits: {type: integer}}\n")
	path := writeFile(t, dir, "c.yaml", `server: {name: docs, version: 1.4}
tools:
  - name: search
    description: Finds.
    inputSchema: {$file: schemas/search.json}
    outputSchema: {$file: schemas/out.yaml}
    annotations: {title: Search, readOnlyHint: true}
    _meta: {x: 0x10, y: 1e3, z: 1_000}
    deprecated: {since: 2026-01-01, sunset: 2027-01-31, replacement: find}
    handler: {static: {text: ok}}
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"search","description":"DEPRECATED (sunset 2027-01-31); use find instead. Finds.",` +
		`"inputSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number","minimum":1.0}},"required":["z"]},` +
		`"outputSchema":{"type":"object","properties":{"hits":{"type":"integer"}}},` +
		`"annotations":{"title":"Search","readOnlyHint":true},` +
		`"_meta":{"x":16,"y":1e3,"z":1000,"io.mcpctl/deprecated":{"since":"2026-01-01","sunset":"2027-01-31","replacement":"find"}}}`
	if d := cmp.Diff(want, string(cfg.Tools[0].Raw)); d != "" {
		t.Errorf("served bytes mismatch (-want +got):\n%s", d)
	}
	if cfg.Server.Version != "1.4" || cfg.Server.Name != "docs" {
		t.Errorf("server = %+v", cfg.Server)
	}
	wantFiles := []string{path, filepath.Join(dir, "schemas/search.json"), filepath.Join(dir, "schemas/out.yaml")}
	if d := cmp.Diff(wantFiles, cfg.Files); d != "" {
		t.Errorf("files mismatch (-want +got):\n%s", d)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"not a mapping", "- a\n", `c.yaml:1:1: a serve config is a mapping`},
		{"no tools", "server: {name: x}\n", `c.yaml:1:1: a serve config needs a "tools" list`},
		{"unknown key", "tools: []\nextra: 1\n", `c.yaml:2:8: /extra: unknown key "extra"`},
		{"tool without name", "tools:\n  - inputSchema: {type: object}\n", `c.yaml:2:5: /tools/0: tool entry has no "name"`},
		{"duplicate key", "tools:\n  - name: a\n    name: b\n", `c.yaml:3:5: /tools/0: duplicate key "name" (first at line 2)`},
		{"bad handler", "tools:\n  - name: a\n    handler: {shell: {cmd: x}}\n", `c.yaml:3:22: tool "a": /tools/0/handler/shell: unknown handler "shell"`},
		{"bad timeout", "tools:\n  - name: a\n    handler: {exec: {command: [x], timeout: soon}}\n", `c.yaml:3:45: tool "a": /tools/0/handler/exec/timeout: want a positive duration`},
		{"infinity", "tools:\n  - name: a\n    inputSchema: {maximum: .inf}\n", `c.yaml:3:28: /tools/0/inputSchema/maximum: ".inf" is not a finite number`},
		{"missing include", "tools:\n  - name: a\n    inputSchema: {$file: nope.json}\n", `c.yaml:3:18: /tools/0/inputSchema: $file nope.json: no such file or directory`},
		{"invalid YAML", "tools: [\n", `c.yaml:1:1: invalid YAML: did not find expected node content`},
		{"gate entry without reason", "tools: []\ngate: {allow: [{tool: a}]}\n", `c.yaml:2:16: /gate/allow/0: a gate.allow entry needs a reason`},
		{"gate entry for everything", "tools: []\ngate: {allow: [{reason: x}]}\n", `needs a rule, a tool or both`},
		{"bad until", "tools: []\ngate: {allow: [{tool: a, reason: x, until: someday}]}\n", `until: want a date`},
		{"bad facade", "tools:\n  - name: a\n    facade: {renames: {a: b}}\n", `/tools/0/facade: facade: json: unknown field "renames"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "c.yaml", tc.config)
			_, err := LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, toolset.ErrInput) {
				t.Errorf("error does not wrap toolset.ErrInput: %v", err)
			}
			if got := strings.ReplaceAll(err.Error(), dir+"/", ""); !strings.Contains(got, tc.want) {
				t.Errorf("error %q does not contain %q", got, tc.want)
			}
		})
	}
}

func TestIncludeErrorsLocatedInTheIncludedFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "s.json", "{\n  \"type\": \"object\",\n  \"type\": \"object\"\n}")
	writeFile(t, dir, "loop.yaml", "$file: loop.yaml\n")
	for _, tc := range []struct{ include, want string }{
		{"s.json", "s.json:3:3: /tools/0/inputSchema: duplicate"},
		{"loop.yaml", "include cycle"},
	} {
		path := writeFile(t, dir, "c.yaml", "tools:\n  - name: a\n    inputSchema: {$file: "+tc.include+"}\n")
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want) {
			t.Errorf("include %s: %v, want %q", tc.include, err, tc.want)
		}
	}
}

func TestValidationErrorsLocated(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "c.yaml", `tools:
  - name: ok
    inputSchema: {type: object}
    handler: {static: {text: x}}
  - name: "bad name!"
    inputSchema: {type: object}
    handler: {static: {text: x}}
  - name: arr
    inputSchema: {type: array}
    handler: {static: {text: x}}
  - name: Ok
    inputSchema:
      type: object
      properties:
        n: {type: integer, minimum: "1"}
    handler: {static: {text: x}}
`)
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildGeneration(cfg, buildOptions{})
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.ReplaceAll(strings.Join(errorLines(err), "\n"), dir+"/", "")
	for _, want := range []string{
		`c.yaml:5:11: tool "bad name!": /name:`,
		`c.yaml:11:11: tool "Ok": /name: name "Ok" differs only in case from tool "ok"`,
		`c.yaml:9:25: tool "arr": /inputSchema/type: "inputSchema" has "type": "array"`,
		`c.yaml:15:37: tool "Ok": /inputSchema/properties/n/minimum:`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
}

func TestServeConfigAsToolsetSource(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "schemas/a.json", `{"type":"object","properties":{"q":{"type":"string"}}}`)
	yamlPath := writeFile(t, dir, "c.yaml", "server: {name: x}\ntools:\n  - name: b\n    inputSchema: {type: object}\n  - name: a\n    inputSchema: {$file: schemas/a.json}\n    handler: {static: {text: x}}\n")
	jsonPath := writeFile(t, dir, "c.json", `{"server":{"name":"x"},"tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"$file":"schemas/a.json"},"handler":{"static":{"text":"x"}}}]}`)
	var fps []string
	for _, p := range []string{yamlPath, jsonPath} {
		set, err := toolset.Load(context.Background(), p, toolset.LoadOptions{})
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

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(baseConfig))
	f.Add([]byte(`{"server":{"name":"x"},"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`))
	f.Add([]byte("tools: [{name: a, inputSchema: {$file: x.json}}]\ngate: {allow: [{tool: a, reason: r}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig("fuzz.yaml", data, nil)
		if err != nil {
			if !errors.Is(err, toolset.ErrInput) {
				t.Fatalf("error not an input error: %v", err)
			}
			return
		}
		// Parsing succeeded: every tool renders to JSON that parses, and
		// the set builds or reports a duplicate as input.
		if _, err := cfg.Set(); err != nil && !errors.Is(err, toolset.ErrInput) {
			t.Fatalf("Set: %v", err)
		}
	})
}
