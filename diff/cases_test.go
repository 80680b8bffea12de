package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// caseFile is one entry of testdata/cases/cases.json (see its README).
type caseFile struct {
	ID     string          `json:"id"`
	Kind   string          `json:"kind"`
	About  string          `json:"about"`
	Old    json.RawMessage `json:"old"`
	New    json.RawMessage `json:"new"`
	Expect struct {
		Level    string `json:"level"`
		Findings []struct {
			Tool      string          `json:"tool"`
			Direction string          `json:"direction"`
			Level     string          `json:"level"`
			Mentions  string          `json:"mentions"`
			Witness   json.RawMessage `json:"witness"`
		} `json:"findings"`
	} `json:"expect"`
}

func loadCases(t *testing.T) map[string]caseFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "cases", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list []caseFile
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]caseFile{}
	for _, c := range list {
		out[c.ID] = c
	}
	return out
}

func setFromTools(t *testing.T, source string, tools json.RawMessage) *toolset.Set {
	t.Helper()
	s, err := toolset.Decode(source, []byte(`{"tools":`+string(tools)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestToolLevelCases runs the tool-level diff cases of cases.json (the
// schema-level ones belong to the schema comparison's tests): the report's
// level and each expected finding (tool, direction, level, a word its path,
// message or facade suggestion mentions).
func TestToolLevelCases(t *testing.T) {
	cases := loadCases(t)
	for _, id := range []string{"diff-tool-renamed", "diff-tool-removed", "diff-annotation-default", "diff-key-order-only", "diff-schema-lost"} {
		tc, ok := cases[id]
		if !ok {
			t.Fatalf("case %s missing from cases.json", id)
		}
		t.Run(id, func(t *testing.T) {
			r := Compare(setFromTools(t, "old", tc.Old), setFromTools(t, "new", tc.New), Options{Now: fixtureNow})
			if got := r.Level.String(); got != tc.Expect.Level {
				t.Errorf("level = %s, want %s (%s); changes: %+v", got, tc.Expect.Level, tc.About, r.Changes)
			}
			for _, f := range tc.Expect.Findings {
				found := slices.ContainsFunc(r.Changes, func(c Change) bool {
					if c.Tool != f.Tool || c.Level.String() != f.Level || (f.Direction != "" && string(c.Direction) != f.Direction) {
						return false
					}
					text := c.Path + " " + c.Message
					if c.Facade != nil {
						b, _ := json.Marshal(c.Facade)
						text += " " + string(b)
					}
					return strings.Contains(text, f.Mentions)
				})
				if !found {
					t.Errorf("no finding on %s at level %s mentioning %q; changes: %+v", f.Tool, f.Level, f.Mentions, r.Changes)
				}
			}
		})
	}
}

func TestSchemaLostIsToolInvalid(t *testing.T) {
	tc := loadCases(t)["diff-schema-lost"]
	r := Compare(setFromTools(t, "old", tc.Old), setFromTools(t, "new", tc.New), Options{Now: fixtureNow})
	i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Rule == "tool-invalid" })
	if i < 0 {
		t.Fatalf("no tool-invalid finding: %+v", r.Changes)
	}
	c := r.Changes[i]
	if c.Level != Breaking || c.Tool != "read_file" || c.Path != "/inputSchema" || !strings.Contains(c.Message, `"type": "object"`) {
		t.Errorf("tool-invalid finding = %+v", c)
	}
}

// TestRenameSuggestionCovers: the rename suggestion of cases.json
// diff-tool-renamed, declared as the facade, covers the finding, and the
// gate level drops to safe while Report.Level stays facade.
func TestRenameSuggestionCovers(t *testing.T) {
	tc := loadCases(t)["diff-tool-renamed"]
	old, new := setFromTools(t, "old", tc.Old), setFromTools(t, "new", tc.New)
	r := Compare(old, new, Options{Now: fixtureNow})
	i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Rule == "tool-renamed" })
	if i < 0 {
		t.Fatalf("no tool-renamed finding: %+v", r.Changes)
	}
	sug := r.Changes[i].Facade
	if sug == nil || sug.Tool != "photos_list" || len(sug.Block.Aliases) != 1 || sug.Block.Aliases[0].Name != "photos.list" {
		t.Fatalf("suggestion = %+v, want alias photos.list on photos_list", sug)
	}
	if r.GateLevel() != Facade {
		t.Errorf("GateLevel without facades = %v, want facade", r.GateLevel())
	}
	covered := Compare(old, new, Options{Now: fixtureNow, Facades: sug.File()})
	c := covered.Changes[slices.IndexFunc(covered.Changes, func(c Change) bool { return c.Rule == "tool-renamed" })]
	if !c.Covered {
		t.Errorf("declared suggestion does not cover its finding: %+v", c)
	}
	if covered.Level != Facade || covered.GateLevel() != Safe {
		t.Errorf("Level, GateLevel = %v, %v; want facade, safe", covered.Level, covered.GateLevel())
	}
	// The witness is a real old call: valid under the old schema.
	w, err := schema.Decode(c.Witness)
	if err != nil {
		t.Fatal(err)
	}
	oc, err := schema.Compile(old.Lookup("photos.list").InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	if err := oc.Validate(w); err != nil {
		t.Errorf("witness %s is not valid for the old tool: %v", c.Witness, err)
	}
}
