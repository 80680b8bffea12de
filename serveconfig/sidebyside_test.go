package serveconfig

import (
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/canon"
)

// sideBySideCases are configs (config.yaml) with the files they include,
// written so that converting the tool entries side by side could go wrong:
// includes shared by several entries and read in a different order by
// each, anchors of one entry used by another, errors in several entries,
// alias bombs, and includes whose values exceed the document's own budget.
func sideBySideCases() map[string]map[string]string {
	many := func(n int, entry func(i int) string) string {
		var b strings.Builder
		b.WriteString("server: {name: s, version: 1.0.0}\ntools:\n")
		for i := range n {
			b.WriteString(entry(i))
		}
		return b.String()
	}
	bigJSON := `{"type":"object","properties":{` + strings.Repeat(`"a":{"type":"string"},`, 0)
	var props []string
	for i := range 300 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","maxLength":%d}`, i, i))
	}
	bigJSON += strings.Join(props, ",") + `}}`
	return map[string]map[string]string{
		"shared includes in several orders": {
			"config.yaml": many(40, func(i int) string {
				a, b := "schemas/a.yaml", "b.json"
				if i%3 == 1 {
					a, b = b, a
				}
				return fmt.Sprintf("  - name: t%d\n    inputSchema: {$file: %s}\n    _meta: {x: {$file: %s}, n: {$file: n%d.yaml}}\n    handler: {static: {text: ok}}\n", i, a, b, i%5)
			}),
			"schemas/a.yaml": "type: object\nproperties:\n  q: {$file: ../q.yaml}\n",
			"q.yaml":         "{type: string, maxLength: 4}\n",
			"b.json":         "{\n  \"type\": \"object\",\n  \"properties\": {\"r\": {\"type\": \"integer\"}}\n}\n",
			"n0.yaml":        "1", "n1.yaml": "[2, 3]", "n2.yaml": "{four: 4}", "n3.yaml": "five", "n4.yaml": "~",
		},
		"anchors of one entry aliased by others": {
			"config.yaml": "tools:\n  - name: a\n    inputSchema: &s {type: object, properties: {q: &q {type: string}}}\n    handler: {static: {text: ok}}\n" +
				"  - {name: b, inputSchema: *s, handler: {static: {text: ok}}}\n  - {name: c, inputSchema: {type: object, properties: {r: *q}}, handler: {static: {text: ok}}}\n",
		},
		"errors in several entries: the first is reported": {
			"config.yaml": many(30, func(i int) string {
				switch i {
				case 7:
					return "  - {name: t7, inputSchema: {$file: missing.yaml}}\n"
				case 19:
					return "  - {name: t19, inputSchema: {type: object, type: object}}\n"
				case 23:
					return "  - {name: t23, inputSchema: {$file: cycle.yaml}}\n"
				}
				return fmt.Sprintf("  - {name: t%d, inputSchema: {$file: ok.yaml}}\n", i)
			}),
			"ok.yaml":    "type: object\n",
			"cycle.yaml": "a: {$file: cycle.yaml}\n",
		},
		"an include cycle": {
			"config.yaml": "tools:\n  - {name: a, inputSchema: {$file: c1.yaml}}\n  - {name: b, inputSchema: {type: object}}\n",
			"c1.yaml":     "x: {$file: c2.yaml}\n",
			"c2.yaml":     "y: {$file: c1.yaml}\n",
		},
		"an alias bomb in one entry": {
			"config.yaml": many(12, func(i int) string {
				if i == 9 {
					return "  - name: t9\n    inputSchema:\n" + aliasBomb("      ", "x")
				}
				return fmt.Sprintf("  - {name: t%d, inputSchema: {type: object}}\n", i)
			}),
		},
		"an alias bomb in an include": {
			"config.yaml": "tools:\n  - {name: a, inputSchema: {type: object}}\n  - {name: b, inputSchema: {$file: bomb.yaml}}\n",
			"bomb.yaml":   aliasBomb("", "x"),
		},
		"includes larger than the document's budget": {
			"config.yaml": many(150, func(i int) string {
				return fmt.Sprintf("  - {name: t%d, inputSchema: {$file: s%d.json}}\n", i, i%15)
			}),
			"s0.json": bigJSON, "s1.json": bigJSON, "s2.json": bigJSON, "s3.json": bigJSON, "s4.json": bigJSON,
			"s5.json": bigJSON, "s6.json": bigJSON, "s7.json": bigJSON, "s8.json": bigJSON, "s9.json": bigJSON,
			"s10.json": bigJSON, "s11.json": bigJSON, "s12.json": bigJSON, "s13.json": bigJSON, "s14.json": bigJSON,
		},
		"aliases past the budget across entries": {
			"config.yaml": "x: &a [" + strings.Repeat("0, ", 200) + "0]\ny: &b [" + strings.Repeat("*a, ", 99) + "*a]\n" +
				many(60, func(i int) string { return fmt.Sprintf("  - {name: t%d, _meta: {z: [*b, *b]}}\n", i) })[len("server: {name: s, version: 1.0.0}\n"):],
		},
		"an early entry spends what a later entry's include grants": {
			// In order, t0 exhausts the budget before t1's include adds
			// its share; side by side, t1 may read it first.
			"config.yaml": "x: &a [" + strings.Repeat("0, ", 999) + "0]\ntools:\n  - {name: t0, _meta: {z: [" + strings.Repeat("*a, ", 119) + "*a]}}\n" +
				"  - {name: t1, inputSchema: {$file: big.json}}\n",
			"big.json": "[" + strings.Repeat("0,", 30000) + "0]",
		},
		"tools given by an alias": {
			"config.yaml": "x: &t [{name: a, inputSchema: {$file: ok.yaml}}, {name: b, inputSchema: {$file: ok.yaml}}]\ntools: *t\n",
			"ok.yaml":     "type: object\n",
		},
	}
}

// readMap reads files of m by their path relative to dir.
func readMap(dir string, m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, err
		}
		s, ok := m[filepath.ToSlash(rel)]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

// TestConfigSideBySideSameAsInOrder (issue 8 item 9: a 10,000-tool config
// parses in under 2 s): the entries of the tools list are converted on
// every core; the config, the places recorded for every value and key,
// the files read (in order) and the error reported are exactly those of
// converting the document in order.
func TestConfigSideBySideSameAsInOrder(t *testing.T) {
	t.Parallel()
	for name, files := range sideBySideCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			src := filepath.Join(dir, "config.yaml")
			sameSideBySide(t, sideBySideRuns(), src, []byte(files["config.yaml"]), readMap(dir, files))
		})
	}
}

// sideBySideRuns is how many side-by-side parses each case compares with
// the in-order one: 5 (the order entries finish in varies), 2 under -short
// (.ci/run's race step, where one already shows the race detector every
// concurrent access).
func sideBySideRuns() int {
	if testing.Short() {
		return 2
	}
	return 5
}

// parsedForCompare is what a config load yields, places included.
type parsedForCompare struct {
	Err        string
	Config     *Config
	At, KeysAt map[string]Pos
}

// sameSideBySide fails t when parsing data side by side, n times (the
// order entries finish in varies), differs from parsing it in order. The
// in-order parse has one answer, so it is made once.
func sameSideBySide(t *testing.T, n int, src string, data []byte, read func(string) ([]byte, error)) {
	t.Helper()
	want := parseForCompare(src, data, read, false)
	for range n {
		got := parseForCompare(src, data, read, true)
		if !sameParse(want, got) {
			t.Fatalf("side by side differs from in order (-want +got):\n%s", cmp.Diff(want, got, cmpopts.IgnoreUnexported(ToolConfig{}, canon.Value{}, RecordConfig{})))
		}
	}
}

// sameParse is reflect.DeepEqual(a, b) (the places are nil exactly when
// Err is set), with the places, tens of thousands of entries in the large
// cases, compared as maps of comparable values, several times faster than
// by reflection.
func sameParse(a, b parsedForCompare) bool {
	return a.Err == b.Err && maps.Equal(a.At, b.At) && maps.Equal(a.KeysAt, b.KeysAt) && reflect.DeepEqual(a.Config, b.Config)
}

func parseForCompare(src string, data []byte, read func(string) ([]byte, error), sideBySide bool) parsedForCompare {
	cfg, err := parseConfig(src, data, read, sideBySide)
	if err != nil {
		return parsedForCompare{Err: err.Error()}
	}
	var at, keys int
	if len(cfg.Tools) > 0 {
		at, keys = countPlaces(cfg.Tools[0].places)
	}
	got := parsedForCompare{Config: cfg, At: make(map[string]Pos, at), KeysAt: make(map[string]Pos, keys)}
	if len(cfg.Tools) > 0 {
		flattenPlaces(cfg.Tools[0].places, got.At, got.KeysAt)
	}
	for _, t := range cfg.Tools {
		t.places = nil // compared flattened
	}
	return got
}

// countPlaces is how many values and keys flattenPlaces(pl) visits (an
// upper bound on the entries it makes).
func countPlaces(pl *places) (at, keys int) {
	at, keys = len(pl.at), len(pl.key)
	for _, t := range pl.tools {
		a, k := countPlaces(t)
		at, keys = at+a, keys+k
	}
	return at, keys
}

func flattenPlaces(pl *places, at, keys map[string]Pos) {
	for k, v := range pl.at {
		at[k] = v
	}
	for k, v := range pl.key {
		keys[k] = v
	}
	for _, t := range pl.tools {
		flattenPlaces(t, at, keys)
	}
}
