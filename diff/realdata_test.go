package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// The expected verdicts of testdata/realdata/README.md, as far as schema
// rules decide them.

func loadReal(t testing.TB, name string) *toolset.Set {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "realdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return decodeToolSet(t, name, data)
}

func compareReal(t *testing.T, a, b string) (*toolset.Set, *toolset.Set, *Report) {
	t.Helper()
	old, new := loadReal(t, a), loadReal(t, b)
	r := Compare(old, new, Options{})
	checkWitnesses(t, old, new, r)
	return old, new, r
}

// findChanges returns the findings matching tool, rule and (when not "") path.
func findChanges(r *Report, tool, rule, path string) []Change {
	var out []Change
	for _, c := range r.Changes {
		if c.Tool == tool && c.Rule == rule && (path == "" || c.Path == path) {
			out = append(out, c)
		}
	}
	return out
}

func hasWitnessJSON(c Change) bool {
	return len(c.Witness) > 0 && !bytes.Equal(c.Witness, []byte("null"))
}

func TestRealFilesystemMinItems(t *testing.T) {
	t.Parallel()
	old, new, r := compareReal(t, "server-filesystem/2025.8.18", "server-filesystem/2025.11.25")
	var breaking []Change
	for _, c := range r.Changes {
		if c.Level == Breaking {
			breaking = append(breaking, c)
		}
	}
	if len(breaking) != 1 {
		t.Fatalf("want exactly one breaking finding, got %d:%s", len(breaking), changeSummary(r))
	}
	c := breaking[0]
	if c.Tool != "read_multiple_files" || c.Direction != Input || c.Rule != "input-min-items-raised" || c.Path != "/properties/paths/minItems" {
		t.Errorf("breaking finding = %s %s %s %s, want read_multiple_files input input-min-items-raised /properties/paths/minItems", c.Tool, c.Direction, c.Rule, c.Path)
	}
	if !hasWitnessJSON(c) || !witnessHolds(t, old, new, c.Tool, c.Direction, c.Witness) {
		t.Errorf("witness %s does not hold", c.Witness)
	}
	// additionalProperties: false dropped from inputs is a safe widening.
	opened := 0
	for _, c := range r.Changes {
		if c.Rule == "input-additional-properties-opened" {
			opened++
			if c.Level != Safe {
				t.Errorf("%s %s: level %s, want safe", c.Tool, c.Path, c.Level)
			}
		}
	}
	if opened == 0 {
		t.Errorf("no input-additional-properties-opened finding:%s", changeSummary(r))
	}
	if got := findChanges(r, "read_file", "output-schema-added", ""); len(got) != 1 || got[0].Level != Safe {
		t.Errorf("read_file output-schema-added = %v, want one safe finding", got)
	}
}

func TestRealFilesystemSafeAdditions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		old, new, tool string
		props          []string
	}{
		{"server-filesystem/0.5.1", "server-filesystem/2025.1.14", "search_files", []string{"excludePatterns"}},
		{"server-filesystem/2025.1.14", "server-filesystem/2025.7.1", "read_file", []string{"head", "tail"}},
	} {
		t.Run(tc.old+"->"+tc.new, func(t *testing.T) {
			_, _, r := compareReal(t, tc.old, tc.new)
			if r.Level > Safe {
				t.Errorf("level = %s, want safe:%s", r.Level, changeSummary(r))
			}
			for _, p := range tc.props {
				got := findChanges(r, tc.tool, "input-property-added", "/properties/"+p)
				if len(got) != 1 || got[0].Level != Safe {
					t.Errorf("%s: want one safe input-property-added for %s:%s", tc.tool, p, changeSummary(r))
				}
			}
		})
	}
}

func TestRealFilesystemOutputWidened(t *testing.T) {
	t.Parallel()
	old, new, r := compareReal(t, "server-filesystem/2026.7.4", "server-filesystem/2026.7.10")
	found := false
	for _, c := range r.Changes {
		if c.Tool == "read_media_file" && c.Direction == Output && c.Level == Breaking {
			found = true
			if !hasWitnessJSON(c) || !witnessHolds(t, old, new, c.Tool, Output, c.Witness) {
				t.Errorf("%s: witness %s does not hold (%s)", c.Rule, c.Witness, c.NoWitness)
			}
		}
	}
	if !found {
		t.Errorf("no breaking output finding for read_media_file:%s", changeSummary(r))
	}
}

func TestRealFilesystemSchemaLost(t *testing.T) {
	t.Parallel()
	old, _, r := compareReal(t, "server-filesystem/0.5.1", "server-filesystem/0.5.1-unpinned-deps")
	if r.Level != Breaking {
		t.Fatalf("level = %s, want breaking", r.Level)
	}
	for _, tl := range old.Tools {
		props := tl.InputSchema().Get("properties")
		if props == nil {
			continue
		}
		for _, m := range props.Members {
			if got := findChanges(r, tl.Name, "input-property-removed", "/properties/"+m.Key); len(got) != 1 || got[0].Level != Breaking {
				t.Errorf("%s: want breaking input-property-removed for %q", tl.Name, m.Key)
			}
		}
	}
}

func TestRealGithubListIssues(t *testing.T) {
	t.Parallel()
	old, new, r := compareReal(t, "github-mcp-server/v0.10.0", "github-mcp-server/v0.11.0")
	if r.Level != Breaking {
		t.Errorf("level = %s, want breaking", r.Level)
	}
	removed := findChanges(r, "list_issues", "input-enum-value-removed", "/properties/state/enum")
	if len(removed) != 1 || !mentionsWord(removed[0], `"all"`) || !hasWitnessJSON(removed[0]) || !witnessHolds(t, old, new, "list_issues", Input, removed[0].Witness) {
		t.Errorf("state: want input-enum-value-removed naming \"all\" with a witness:%s", changeSummary(r))
	}
	renamed := findChanges(r, "list_issues", "input-enum-value-renamed", "/properties/direction/enum")
	if len(renamed) != 1 || renamed[0].Level != Facade || renamed[0].Facade == nil {
		t.Fatalf("direction: want a facade input-enum-value-renamed:%s", changeSummary(r))
	}
	if got, want := renamed[0].Facade.Block.Values["direction"], map[string]any{"asc": "ASC", "desc": "DESC"}; !mapsEqual(got, want) {
		t.Errorf("direction values facade = %v, want %v", got, want)
	}
	for _, p := range []string{"sort", "page"} {
		if got := findChanges(r, "list_issues", "input-property-removed", "/properties/"+p); len(got) != 1 || got[0].Level != Breaking {
			t.Errorf("want breaking input-property-removed for %s", p)
		}
	}
	for _, p := range []string{"orderBy", "after"} {
		if got := findChanges(r, "list_issues", "input-property-added", "/properties/"+p); len(got) != 1 || got[0].Level != Safe {
			t.Errorf("want safe input-property-added for %s", p)
		}
	}
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRealGithubSearchCodeRename(t *testing.T) {
	t.Parallel()
	old, new, r := compareReal(t, "github-mcp-server/v0.8.0", "github-mcp-server/v0.10.0")
	if r.Level < Facade {
		t.Errorf("level = %s, want facade or breaking", r.Level)
	}
	got := findChanges(r, "search_code", "input-property-renamed", "/properties/q")
	if len(got) != 1 || got[0].Level != Facade || got[0].Facade == nil || got[0].Facade.Block.Rename["q"] != "query" {
		t.Fatalf("want a facade rename q → query:%s", changeSummary(r))
	}
	if !hasWitnessJSON(got[0]) || !witnessHolds(t, old, new, "search_code", Input, got[0].Witness) {
		t.Errorf("rename witness %s does not hold", got[0].Witness)
	}
	if n := len(findChanges(r, "search_code", "input-required-added", "")); n != 0 {
		t.Errorf("the renamed required property must not also be reported as newly required")
	}
}

func TestRealGithubKeyOrder(t *testing.T) {
	t.Parallel()
	old, new, r := compareReal(t, "github-mcp-server/v0.23.0", "github-mcp-server/v0.24.0")
	// A tool whose normalized schemas are equal (key order aside) has no
	// schema finding.
	for _, c := range r.Changes {
		if c.Direction == ToolD {
			continue
		}
		a, b := schemaOf(old, c.Tool, c.Direction), schemaOf(new, c.Tool, c.Direction)
		if a != nil && b != nil && bytes.Equal(canon.AppendSchema(nil, a), canon.AppendSchema(nil, b)) {
			t.Errorf("%s %s: finding %s on a schema that only changed key order", c.Tool, c.Direction, c.Rule)
		}
	}
	if got := findChanges(r, "dismiss_notification", "input-required-added", "/properties/state"); len(got) != 1 || got[0].Level != Breaking {
		t.Errorf("dismiss_notification: want breaking input-required-added for state:%s", changeSummary(r))
	}
	if got := findChanges(r, "push_files", "input-additional-properties-opened", "/properties/files/items/additionalProperties"); len(got) != 1 || got[0].Level != Safe {
		t.Errorf("push_files: want safe input-additional-properties-opened:%s", changeSummary(r))
	}
	var tools []string
	for _, c := range r.Changes {
		if c.Direction != ToolD && c.Rule != "input-description-changed" && !slices.Contains(tools, c.Tool) {
			tools = append(tools, c.Tool)
		}
	}
	// get_me's "inputSchema": null (an upstream bug) is the third.
	if got := findChanges(r, "get_me", "input-schema-removed", ""); len(got) != 1 || got[0].Level != Breaking {
		t.Errorf("get_me: want breaking input-schema-removed:%s", changeSummary(r))
	}
	if !slices.Equal(tools, []string{"dismiss_notification", "get_me", "push_files"}) {
		t.Errorf("schema findings on tools %v, want only dismiss_notification, get_me and push_files:%s", tools, changeSummary(r))
	}
}

// TestRealAllPairs compares every consecutive pair of snapshots: no panic,
// every witness holds, and the report is deterministic.
func TestRealAllPairs(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"server-filesystem", "github-mcp-server"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "realdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = dir + "/" + filepath.Base(f[:len(f)-len(".json")])
		}
		for i := 0; i+1 < len(names); i++ {
			for _, pair := range [][2]string{{names[i], names[i+1]}, {names[i+1], names[i]}} {
				t.Run(pair[0]+"->"+pair[1], func(t *testing.T) {
					old, new := loadReal(t, pair[0]), loadReal(t, pair[1])
					r1 := Compare(old, new, Options{Verify: 16})
					r2 := Compare(old, new, Options{Verify: 16})
					b1, _ := json.Marshal(r1)
					b2, _ := json.Marshal(r2)
					if !bytes.Equal(b1, b2) {
						t.Errorf("report is not deterministic")
					}
					checkWitnesses(t, old, new, r1)
					for _, c := range r1.Changes {
						if c.RuleBug {
							t.Errorf("verify found a rule bug: %s %s %s", c.Tool, c.Direction, c.Witness)
						}
					}
				})
			}
		}
	}
}
