package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/keydoc"
	"github.com/mcpctl/mcpctl/serveconfig"
)

var update = flag.Bool("update", false, "rewrite docs/config.md and docs/schema/*.json from the loaders' key tables")

// configFile is one configuration format: its key table, where its schema
// is published, and a loader that says whether a file is valid.
type configFile struct {
	name, schema, title, intro string
	keys                       keydoc.Key
	load                       func(name string, data []byte) error
}

var configFiles = []configFile{
	{"serve config", "serve.schema.json", "mcpctl serve config",
		"The file `mcpctl serve CONFIG` serves and watches (YAML or JSON). Inside a tool entry, any value may be `{$file: PATH}`: the JSON or YAML file at PATH (relative to the folder of the file naming it) in its place.",
		serveconfig.ConfigKeys, func(name string, data []byte) error { _, err := serveconfig.ParseConfig(name, data, nil); return err }},
	{"facade file", "facades.schema.json", "mcpctl facade file",
		"The file `--facades FILE` reads (diff, replay): tool name → facade block. A serve config is accepted there too (its tools' facades).",
		facade.FileKey, func(name string, data []byte) error { _, err := facade.Parse(name, data); return err }},
	{".mcpctl.yaml", "mcpctl.schema.json", "mcpctl .mcpctl.yaml",
		"The policy `mcpctl diff` and `mcpctl lint` find in the working directory or a parent (or read with `--config`).",
		config.Keys, func(name string, data []byte) error { _, err := config.Parse(name, data, diff.Rules()); return err }},
}

const schemaBase = "https://raw.githubusercontent.com/mcpctl/mcpctl/main/docs/schema/"

func (f configFile) schemaJSON(t *testing.T) []byte {
	b, err := json.MarshalIndent(keydoc.Schema(schemaBase+f.schema, f.title, f.keys), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func configMarkdown(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString("# Configuration reference\n\n")
	b.WriteString("Every key of mcpctl's configuration files, generated from the tables the\n")
	b.WriteString("loaders use (regenerate with `go test ./cmd -run TestIssue10Item7 -update`;\n")
	b.WriteString("a test fails when this file is stale). The same tables give the JSON\n")
	b.WriteString("Schemas in `docs/schema/`, for editors: start a YAML file with\n\n")
	b.WriteString("```yaml\n# yaml-language-server: $schema=https://raw.githubusercontent.com/mcpctl/mcpctl/main/docs/schema/serve.schema.json\n```\n\n")
	b.WriteString("(or a relative path to the schema) and the YAML language server completes\n")
	b.WriteString("and checks keys. Types: a *duration* is `10s`, `1m30s` or a number of\n")
	b.WriteString("seconds; a *date* is `2027-01-31` or an RFC 3339 time; *string or number*\n")
	b.WriteString("takes unquoted numbers such as `version: 1.4`.\n")
	for _, f := range configFiles {
		fmt.Fprintf(&b, "\n## %s\n\n%s Schema: [`docs/schema/%s`](schema/%s).\n\n", f.name, f.intro, f.schema, f.schema)
		if err := keydoc.Markdown(&b, f.keys); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// checkGenerated compares a generated file with the committed one, or
// rewrites it with -update.
func checkGenerated(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v (generate it with go test ./cmd -run TestIssue10Item7 -update)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s is stale; run go test ./cmd -run TestIssue10Item7 -update\nmismatch (-want +got):\n%s", path, d)
	}
}

// TestIssue10Item7ConfigSchemas: keys of the serve config were discoverable
// only from error messages. docs/schema/*.json and docs/config.md are
// generated from the loaders' key tables and must be current; every key
// of the tables is in docs/config.md; every config under examples/ and
// testdata (and in the CLI scripts) that its loader accepts is valid
// against its schema, and a misspelled key is not.
func TestIssue10Item7ConfigSchemas(t *testing.T) {
	t.Parallel()
	md := configMarkdown(t)
	checkGenerated(t, "../docs/config.md", md)
	for _, f := range configFiles {
		checkGenerated(t, "../docs/schema/"+f.schema, f.schemaJSON(t))
		for _, name := range allKeyNames(f.keys) {
			if !bytes.Contains(md, []byte(name+"`")) {
				t.Errorf("docs/config.md does not mention %s key %q", f.name, name)
			}
		}
	}
	schemas := compileSchemas(t)
	checked := map[string]int{}
	for _, c := range configSamples(t) {
		for _, f := range configFiles {
			if f.name != c.kind {
				continue
			}
			if err := f.load(c.name, c.data); err != nil {
				continue // the loader refuses it: a negative case
			}
			checked[f.name]++
			if err := schemas[f.name].Validate(yamlInstance(t, c.data)); err != nil {
				t.Errorf("%s: valid for the loader, invalid for %s: %v", c.name, f.schema, err)
			}
		}
	}
	t.Logf("samples valid for their loader, checked against the schema: %v", checked)
	for _, f := range configFiles {
		if checked[f.name] == 0 {
			t.Errorf("no %s sample was checked", f.name)
		}
	}
	for name, bad := range map[string]string{
		"serve config": "tools:\n  - name: a\n    handler: {exec: {comand: [x]}}\n",
		"facade file":  "t:\n  renames: {a: b}\n",
		".mcpctl.yaml": "ignores: []\n",
	} {
		if schemas[name].Validate(yamlInstance(t, []byte(bad))) == nil {
			t.Errorf("%s schema accepts a misspelled key:\n%s", name, bad)
		}
	}
}

// TestIssue10Item7ExamplesNameTheirSchema: every example config starts with
// a yaml-language-server line naming the serve config schema by a path
// that exists.
func TestIssue10Item7ExamplesNameTheirSchema(t *testing.T) {
	t.Parallel()
	for _, c := range configSamples(t) {
		if !strings.HasPrefix(c.name, "../examples/") {
			continue
		}
		line, _, _ := strings.Cut(string(c.data), "\n")
		ref, ok := strings.CutPrefix(line, "# yaml-language-server: $schema=")
		if !ok {
			t.Errorf("%s does not start with # yaml-language-server: $schema=…", c.name)
			continue
		}
		if filepath.Base(ref) != "serve.schema.json" {
			t.Errorf("%s names %s, want the serve config schema", c.name, ref)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(c.name), ref)); err != nil {
			t.Errorf("%s: its schema path: %v", c.name, err)
		}
	}
}

// allKeyNames returns every key name in k's tables.
func allKeyNames(k keydoc.Key) []string {
	var out []string
	for _, c := range k.Keys {
		out = append(out, c.Name)
		out = append(out, allKeyNames(c)...)
	}
	for _, p := range []*keydoc.Key{k.Items, k.Values} {
		if p != nil {
			out = append(out, allKeyNames(*p)...)
		}
	}
	for _, a := range k.Alternatives {
		out = append(out, allKeyNames(a)...)
	}
	return out
}

func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	c := jsonschema.NewCompiler()
	out := map[string]*jsonschema.Schema{}
	for _, f := range configFiles {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(f.schemaJSON(t)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(schemaBase+f.schema, doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range configFiles {
		s, err := c.Compile(schemaBase + f.schema)
		if err != nil {
			t.Fatalf("%s: %v", f.schema, err)
		}
		out[f.name] = s
	}
	return out
}

// sample is one configuration file of the repository.
type sample struct {
	kind, name string
	data       []byte
}

// configSamples returns the configs under examples/, testdata/ and in the
// CLI scripts, by kind: serve configs (*.yaml with a tools list), facade
// files (*facades*.yaml) and .mcpctl.yaml files (the policies of
// config.txtar).
func configSamples(t *testing.T) []sample {
	var out []sample
	add := func(name string, data []byte) {
		switch {
		case strings.Contains(filepath.Base(name), "facade"):
			out = append(out, sample{"facade file", name, data})
		case bytes.Contains(data, []byte("tools:")):
			out = append(out, sample{"serve config", name, data})
		case strings.Contains(name, "config.txtar"), strings.Contains(name, "lint.txtar"), filepath.Base(name) == ".mcpctl.yaml":
			out = append(out, sample{".mcpctl.yaml", name, data})
		}
	}
	for _, root := range []string{"../examples", "../testdata"} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
				return err
			}
			data, err := os.ReadFile(p)
			add(p, data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	scripts, _ := filepath.Glob("testdata/script/*.txtar")
	for _, s := range scripts {
		a, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if ext := filepath.Ext(f.Name); ext == ".yaml" || ext == ".yml" {
				add(s+"/"+f.Name, f.Data)
			}
		}
	}
	return out
}

// yamlInstance converts YAML to the JSON value the schema validates:
// mappings, sequences and scalars by their resolved YAML tag (an unquoted
// date stays a string, as the loaders read it).
func yamlInstance(t *testing.T, data []byte) any {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return nodeValue(doc.Content[0])
}

func nodeValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.AliasNode:
		return nodeValue(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = nodeValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			s = append(s, nodeValue(c))
		}
		return s
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "!!bool":
		return n.Value == "true"
	case "!!null":
		return nil
	}
	return n.Value
}
