package diff

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// diffCaseByID returns the diff case id of cases.json.
func diffCaseByID(t *testing.T, id string) diffCase {
	t.Helper()
	for _, c := range loadDiffCases(t) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("case %s missing from cases.json", id)
	return diffCase{}
}

func setFromTools(t *testing.T, source string, tools json.RawMessage) *toolset.Set {
	t.Helper()
	return decodeToolSet(t, source, wrapToolsJSON(tools))
}

func TestSchemaLostIsToolInvalid(t *testing.T) {
	t.Parallel()
	tc := diffCaseByID(t, "diff-schema-lost")
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
	t.Parallel()
	tc := diffCaseByID(t, "diff-tool-renamed")
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
