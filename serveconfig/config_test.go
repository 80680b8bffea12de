package serveconfig

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/recording"
	"github.com/mcpctl/mcpctl/toolset"
)

func TestParseConfigServedBytes(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for _, tc := range []struct {
		name, config, want string
	}{
		{"not a mapping", "- a\n", `c.yaml:1:1: a serve config is a mapping`},
		{"no tools", "server: {name: x}\n", `c.yaml:1:1: a serve config needs a "tools" list or "upstreams"`},
		{"unknown key", "tools: []\nextra: 1\n", `c.yaml:2:1: /extra: unknown key "extra" (want server, tools, gate, record or upstreams)`},
		{"tool without name", "tools:\n  - inputSchema: {type: object}\n", `c.yaml:2:5: /tools/0: tool entry has no "name"`},
		{"duplicate key", "tools:\n  - name: a\n    name: b\n", `c.yaml:3:5: /tools/0: duplicate key "name" (first at line 2)`},
		{"bad handler", "tools:\n  - name: a\n    handler: {shell: {cmd: x}}\n", `c.yaml:3:15: tool "a": /tools/0/handler/shell: unknown handler "shell" (want exec, http or static)`},
		{"bad timeout", "tools:\n  - name: a\n    handler: {exec: {command: [x], timeout: soon}}\n", `c.yaml:3:45: tool "a": /tools/0/handler/exec/timeout: want a positive duration`},
		{"infinity", "tools:\n  - name: a\n    inputSchema: {maximum: .inf}\n", `c.yaml:3:28: /tools/0/inputSchema/maximum: ".inf" is not a finite number`},
		{"missing include", "tools:\n  - name: a\n    inputSchema: {$file: nope.json}\n", `c.yaml:3:18: /tools/0/inputSchema: $file nope.json: no such file or directory`},
		{"invalid YAML", "tools: [\n", `c.yaml:2: invalid YAML: did not find expected node content`},
		{"misspelled handler kind", "tools:\n  - name: a\n    handler: {exce: {command: [x]}}\n", `c.yaml:3:15: tool "a": /tools/0/handler/exce: unknown handler "exce" (want exec, http or static); did you mean "exec"?`},
		{"misspelled exec key", "tools:\n  - name: a\n    handler:\n      exec: {comand: [x]}\n", `c.yaml:4:14: tool "a": /tools/0/handler/exec/comand: unknown key "comand" (want command, timeout, maxOutput, env, dir or concurrency); did you mean "command"?`},
		{"misspelled server key", "server: {nmae: x}\ntools: []\n", `c.yaml:1:10: /server/nmae: unknown key "nmae" (want name, version, title or instructions); did you mean "name"?`},
		{"gate entry without reason", "tools: []\ngate: {allow: [{tool: a}]}\n", `c.yaml:2:16: /gate/allow/0: a gate.allow entry needs a reason`},
		{"gate entry for everything", "tools: []\ngate: {allow: [{reason: x}]}\n", `needs a rule, a tool or both`},
		{"bad until", "tools: []\ngate: {allow: [{tool: a, reason: x, until: someday}]}\n", `until: want a date`},
		{"bad facade", "tools:\n  - name: a\n    facade: {renames: {a: b}}\n", `c.yaml:3:14: tool "a": /tools/0/facade/renames: facade of "a": unknown key "renames" (want rename, defaults, coerce, values, aliases)`},
		{"misspelled record", "tools: []\nrecod: {redact: [x]}\n", `c.yaml:2:1: /recod: unknown key "recod" (want server, tools, gate, record or upstreams); did you mean "record"?`},
		{"misspelled record key", "tools: []\nrecord: {redcat: [x]}\n", `c.yaml:2:10: /record/redcat: unknown key "redcat" (want redact); did you mean "redact"?`},
		{"record not a mapping", "tools: []\nrecord: [x]\n", `c.yaml:2:9: /record: record must be a mapping {redact: […]}, got array`},
		{"record redact not a list", "tools: []\nrecord: {redact: token}\n", `c.yaml:2:18: /record/redact: want a list of strings, got string`},
		{"bad redact pointer", "tools: []\nrecord:\n  redact: [token, /a~2b]\n", `c.yaml:3:19: /record/redact/1: record.redact: "/a~2b" is not a JSON Pointer`},
		{"empty redact entry", "tools: []\nrecord: {redact: [\"\"]}\n", `c.yaml:2:19: /record/redact/0: record.redact: an empty entry`},
		// Issue 11 item 4: accepted by serve, refused by fixtures convert
		// --redact; one rule now (recording.CheckEntry).
		{"blank redact entry", "tools: []\nrecord: {redact: [x, \" \"]}\n", `c.yaml:2:22: /record/redact/1: record.redact: an empty entry " "`},
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
	t.Parallel()
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

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(baseConfig))
	f.Add([]byte(`{"server":{"name":"x"},"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`))
	f.Add([]byte("tools: [{name: a, inputSchema: {$file: x.json}}]\ngate: {allow: [{tool: a, reason: r}]}\n"))
	f.Add([]byte("tools: [{name: a}]\nrecord: {redact: [token, /a~1b/0, ~]}\n"))
	f.Add([]byte("tools: [{name: a, facade: {rename: {q: /a~1b}, defaults: {n: 1e3}, aliases: [b, {name: c, inject: {m: null}}]}}]\n"))
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

// allToolKeys is the "want" list of an unknown tool-level key.
const allToolKeys = "(want name, title, description, inputSchema, outputSchema, annotations, icons, execution, _meta, handler, facade or deprecated)"

func TestToolEntryKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string // besides c.yaml
		cfg   string            // the config, named c.yaml unless cfgName
		name2 string            // config file name when not c.yaml
		want  string
	}{
		{
			name: "misspelled description",
			cfg:  "tools:\n  - name: a\n    descripton: Finds.\n    inputSchema: {type: object}\n",
			want: `c.yaml:3:5: tool "a": /tools/0/descripton: unknown key "descripton" ` + allToolKeys + `; did you mean "description"?`,
		},
		{
			name: "misspelled annotations",
			cfg:  "tools:\n  - name: a\n    inputSchema: {type: object}\n    anotations: {readOnlyHint: true}\n",
			want: `c.yaml:4:5: tool "a": /tools/0/anotations: unknown key "anotations" ` + allToolKeys + `; did you mean "annotations"?`,
		},
		{
			name: "misspelled handler",
			cfg:  "tools:\n  - name: a\n    inputSchema: {type: object}\n    handlr: {static: {text: x}}\n",
			want: `c.yaml:4:5: tool "a": /tools/0/handlr: unknown key "handlr" ` + allToolKeys + `; did you mean "handler"?`,
		},
		{
			name: "transposed letters",
			cfg:  "tools:\n  - name: a\n    inputSchema: {type: object}\n    exectuion: {taskSupport: optional}\n",
			want: `c.yaml:4:5: tool "a": /tools/0/exectuion: unknown key "exectuion" ` + allToolKeys + `; did you mean "execution"?`,
		},
		{
			name: "misspelled name, before any name",
			cfg:  "tools:\n  - nmae: a\n    inputSchema: {type: object}\n",
			want: `c.yaml:2:5: /tools/0/nmae: unknown key "nmae" ` + allToolKeys + `; did you mean "name"?`,
		},
		{
			name: "a key the spec does not define, no near miss",
			cfg:  "tools:\n  - name: a\n    inputSchema: {type: object}\n    category: search\n",
			want: `c.yaml:4:5: tool "a": /tools/0/category: unknown key "category" ` + allToolKeys,
		},
		{
			name:  "JSON config",
			name2: "c.json",
			cfg:   `{"server": {"name": "x"}, "tools": [{"name": "a", "inputSchema": {"type": "object"}, "_mta": {}}]}`,
			want:  `c.json:1:86: tool "a": /tools/0/_mta: unknown key "_mta" ` + allToolKeys + `; did you mean "_meta"?`,
		},
		{
			name:  "tool entry included from YAML",
			files: map[string]string{"tools/a.yaml": "name: a\ninputSchema: {type: object}\ntitel: A\n"},
			cfg:   "tools:\n  - {$file: tools/a.yaml}\n",
			want:  `tools/a.yaml:3:1: tool "a": /tools/0/titel: unknown key "titel" ` + allToolKeys + `; did you mean "title"?`,
		},
		{
			name:  "tool entry included from JSON",
			files: map[string]string{"tools/a.json": "{\n  \"name\": \"a\",\n  \"inputSchema\": {\"type\": \"object\"},\n  \"icon\": []\n}"},
			cfg:   "tools:\n  - {$file: tools/a.json}\n",
			want:  `tools/a.json:4:3: tool "a": /tools/0/icon: unknown key "icon" ` + allToolKeys + `; did you mean "icons"?`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				writeFile(t, dir, name, content)
			}
			cfgName := "c.yaml"
			if tc.name2 != "" {
				cfgName = tc.name2
			}
			_, err := LoadConfig(writeFile(t, dir, cfgName, tc.cfg))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, toolset.ErrInput) {
				t.Errorf("error does not wrap toolset.ErrInput: %v", err)
			}
			if d := cmp.Diff(tc.want, strings.ReplaceAll(err.Error(), dir+"/", "")); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestNearestKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
	}{
		{"descripton", "description"},
		{"inputschema", "inputSchema"},
		{"outptuSchema", "outputSchema"},
		{"meta", "_meta"},
		{"handlers", "handler"},
		{"deprecation", ""}, // distance 3 from "deprecated"
		{"x", ""},           // shorter than any distance
		{"id", ""},
		{"category", ""},
	} {
		got, _ := nearest(tc.in, toolKeys)
		if got != tc.want {
			t.Errorf("nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFacadeBlockAsInAFacadeFile checks that a tool's facade block in a
// serve config is read by the facade-file loader: the same message as the
// same block in a --facades file, located in the config by line, column,
// tool and JSON Pointer.
func TestFacadeBlockAsInAFacadeFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		block string // the facade block, flow style, on one line
		// where the problem is: column in the config line
		// "    facade: BLOCK" (line 4) and pointer below /tools/0/facade.
		col int
		ptr string
	}{
		{"unknown key", "{renam: {q: query}}", 14, "/renam"},
		{"unknown key after a valid one", "{rename: {q: query}, defualts: {limit: 20}}", 34, "/defualts"},
		{"unknown coerce type", "{coerce: {limit: int}}", 30, "/coerce/limit"},
		{"invalid pointer key", "{defaults: {/page~2: 1}}", 25, "/defaults/~1page~02"},
		{"rename to a list", "{rename: {a: [b]}}", 26, "/rename/a"},
		{"alias without a name", "{aliases: [{inject: {a: 1}}]}", 24, "/aliases/0"},
		{"unknown alias key", "{aliases: [{name: x, injct: {a: 1}}]}", 34, "/aliases/0/injct"},
		{"aliases not a list", "{aliases: old_name}", 23, "/aliases"},
		{"not a mapping", "[rename]", 13, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ferr := facade.Parse("f.yaml", []byte("a: "+tc.block+"\n"))
			var fe *facade.FileError
			if !errors.As(ferr, &fe) {
				t.Fatalf("facade file: %v, want a *facade.FileError", ferr)
			}
			dir := t.TempDir()
			_, err := LoadConfig(writeFile(t, dir, "c.yaml", "tools:\n  - name: a\n    inputSchema: {type: object}\n    facade: "+tc.block+"\n"))
			var ie *toolset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("serve config: %v, want a *toolset.InputError", err)
			}
			want := toolset.InputError{Source: filepath.Join(dir, "c.yaml"), Offset: -1, Line: 4, Col: tc.col, Tool: "a", Pointer: "/tools/0/facade" + tc.ptr, Msg: fe.Msg}
			got := *ie
			got.Err = nil
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestFacadeBlockIncluded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "facades/a.yaml", "rename: {q: query}\ncoerce:\n  limit: integr\n")
	_, err := LoadConfig(writeFile(t, dir, "c.yaml", "tools:\n  - name: a\n    inputSchema: {type: object}\n    facade: {$file: facades/a.yaml}\n"))
	want := `facades/a.yaml:3:10: tool "a": /tools/0/facade/coerce/limit: facade of "a": coerce "limit": unknown type "integr" (want string, number, integer, boolean, array)`
	if err == nil {
		t.Fatal("no error")
	}
	if d := cmp.Diff(want, strings.ReplaceAll(err.Error(), dir+"/", "")); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// TestFacadeBlocksEqualFacadeFile checks that the blocks a serve config
// declares decode to what the facade-file loader reads from the same
// config (values included: numbers as YAML decodes them).
func TestFacadeBlocksEqualFacadeFile(t *testing.T) {
	t.Parallel()
	config := `tools:
  - name: search
    inputSchema: {type: object}
    facade:
      rename: {q: query, /filter/old: /filter/new}
      defaults: {limit: 20, ratio: 0.5, exact: false, tags: [a, "1"], big: 12345678901234567890}
      coerce: {limit: integer}
      values: {mode: {fast: FAST, "1": one}}
      aliases:
        - search_docs
        - {name: find, inject: {method: find, n: 1e3}, rename: {perPage: per_page}}
  - name: other
    inputSchema: {type: object}
    facade: null
`
	dir := t.TempDir()
	cfg, err := LoadConfig(writeFile(t, dir, "c.yaml", config))
	if err != nil {
		t.Fatal(err)
	}
	want, err := facade.Parse("c.yaml", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, cfg.Facades()); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestSyntaxErrorsLocated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, data, want string
	}{
		// yaml.v3 gives the line only: no column is made up. Parser
		// problems (the line of the unclosed "{", "[" or mapping) and
		// scanner problems (the line of the token) are both 1-based.
		{"c.yaml", "tools:\n  - name: a\n    inputSchema: {type: object\n", `c.yaml:3: invalid YAML: did not find expected ',' or '}'`},
		{"c.yaml", "a: 1\nb: 2\nc: [1, 2\n", `c.yaml:3: invalid YAML: did not find expected ',' or ']'`},
		{"c.yaml", "tools: []\nserver: {name: x}\n- y\n", `c.yaml:3: invalid YAML: did not find expected key`},
		{"c.yaml", "tools: []\nserver: {name: x}\nx: @y\n", `c.yaml:3: invalid YAML: found character that cannot start any token`},
		{"c.yaml", "tools: []\nx: 1\n  y: 2\n", `c.yaml:3: invalid YAML: mapping values are not allowed in this context`},
		{"c.yaml", "tools: []\nx: \"abc\n", `c.yaml:2: invalid YAML: found unexpected end of stream`},
		// JSON text is located exactly.
		{"c.json", "{\"tools\": [\n  {\"name\": \"a\"\n  \"x\": 1}\n]}", `c.json:3:3: invalid JSON:`},
		{"-", "{\"server\": {\"name\": \"x\"}, \"tools\": [}", `-:1:37: invalid JSON:`},
	} {
		_, err := ParseConfig(tc.file, []byte(tc.data), nil)
		if err == nil {
			t.Errorf("%q: no error", tc.data)
			continue
		}
		if !errors.Is(err, toolset.ErrInput) {
			t.Errorf("%q: error does not wrap toolset.ErrInput: %v", tc.data, err)
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %q, want it to start with %q", tc.data, err, tc.want)
		}
	}
}

func TestIncludeSyntaxErrorLocated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "s.yaml", "type: object\nproperties: {q: {type: string}\nrequired: [q]\n")
	_, err := LoadConfig(writeFile(t, dir, "c.yaml", "tools:\n  - name: a\n    inputSchema: {$file: s.yaml}\n"))
	want := `s.yaml:2: /tools/0/inputSchema: invalid YAML:`
	if err == nil || !strings.HasPrefix(strings.ReplaceAll(err.Error(), dir+"/", ""), want) {
		t.Errorf("error %v, want it to start with %q", err, want)
	}
}

// A refused record.redact entry is located and typed: errors.Is
// recording.ErrRedactEntry, as fixtures convert --redact gets it.
func TestRedactEntryErrorTyped(t *testing.T) {
	t.Parallel()
	for _, e := range []string{`""`, `" "`, `/a~2`} {
		_, err := ParseConfig("c.yaml", []byte("tools: []\nrecord: {redact: ["+e+"]}\n"), nil)
		var ie *toolset.InputError
		if !errors.Is(err, recording.ErrRedactEntry) || !errors.As(err, &ie) || ie.Pointer != "/record/redact/0" {
			t.Errorf("%s: %v, want recording.ErrRedactEntry at /record/redact/0", e, err)
		}
	}
}

// Reproduction: `startTimeout: -1s` and `startTimeout: 1e30` were refused
// with "want a positive duration such as 10s or 1m30s (<nil>)", and
// 1e30 only by chance: 1e30 seconds in nanoseconds does not fit an int64,
// and Go leaves such a float conversion's result to the platform (amd64
// gives a negative number, refused; others may give a positive one,
// accepted). Now the error says what was read, and a number of seconds
// beyond time.Duration's range is refused everywhere.
func TestDurationOutOfRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ value, want string }{
		{"-1s", `c.yaml:2:54: /upstreams/0/startTimeout: want a positive duration such as 10s or 1m30s, got -1s`},
		{"0", `c.yaml:2:54: /upstreams/0/startTimeout: want a positive duration such as 10s or 1m30s, got 0`},
		{"1e30", `c.yaml:2:54: /upstreams/0/startTimeout: want a positive duration such as 10s or 1m30s, got 1e30 seconds (at most 9223372036)`},
		{"9.3e9", `c.yaml:2:54: /upstreams/0/startTimeout: want a positive duration such as 10s or 1m30s, got 9.3e9 seconds (at most 9223372036)`},
		{"soon", `c.yaml:2:54: /upstreams/0/startTimeout: want a positive duration such as 10s or 1m30s (time: invalid duration "soon")`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "c.yaml", "upstreams:\n  - {name: m, stdio: [x], timeout: 1s, startTimeout: "+tc.value+"}\n")
			_, err := LoadConfig(path)
			if err == nil {
				t.Fatal("no error")
			}
			if got := strings.ReplaceAll(err.Error(), dir+"/", ""); !strings.Contains(got, tc.want) || strings.Contains(got, "<nil>") {
				t.Errorf("error %q does not contain %q", got, tc.want)
			}
		})
	}
}
