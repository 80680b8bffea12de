package diff

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/facade"
)

const consOld = `{"tools":[
 {"name":"list_workflows","inputSchema":{"type":"object","properties":{"owner":{"type":"string"},"perPage":{"type":"integer"}},"required":["owner"]}},
 {"name":"actions_list","inputSchema":{"type":"object","properties":{"method":{"type":"string","enum":["list_workflows"]},"owner":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner"],"additionalProperties":false}}]}`

const consNew = `{"tools":[
 {"name":"actions_list","inputSchema":{"type":"object","properties":{"method":{"type":"string","enum":["list_workflows"]},"owner":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner"],"additionalProperties":false}}]}`

func TestCoverageOfRoutes(t *testing.T) {
	t.Parallel()
	full := facade.File{"actions_list": {Aliases: []facade.Alias{{Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"}, Rename: map[string]string{"perPage": "per_page"}}}}}
	tests := []struct {
		name    string
		f       facade.File
		covered bool
		reason  string
	}{
		{"the suggested facade", full, true, ""},
		{"alias without the rename: perPage rejected by the closed schema", facade.File{"actions_list": {Aliases: []facade.Alias{{Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"}}}}}, false, "not covered: "},
		{"tool-level rename completes the alias", facade.File{"actions_list": {Rename: map[string]string{"perPage": "per_page"}, Aliases: []facade.Alias{{Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"}}}}}, true, ""},
		{"no alias for the old name", facade.File{"actions_list": {}}, false, `not covered: no declared facade has an alias "list_workflows"`},
		{"alias to a tool the new side lacks", facade.File{"ghost": {Aliases: []facade.Alias{{Name: "list_workflows"}}}}, false, "not covered: the facade routes list_workflows to ghost, which the new side does not have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(mustSet(t, consOld), mustSet(t, consNew), Options{Now: fixtureNow, Facades: tt.f})
			if len(r.Changes) != 1 || r.Changes[0].Rule != "tool-consolidated" {
				t.Fatalf("changes = %+v", r.Changes)
			}
			c := r.Changes[0]
			if c.Covered != tt.covered || !strings.HasPrefix(c.Reason, tt.reason) || (tt.reason == "" && c.Reason != "") {
				t.Errorf("covered %v reason %q; want %v, reason starting %q", c.Covered, c.Reason, tt.covered, tt.reason)
			}
			want := Facade
			if tt.covered {
				want = Safe
			}
			if r.GateLevel() != want || r.Level != Facade {
				t.Errorf("GateLevel %v Level %v, want %v facade", r.GateLevel(), r.Level, want)
			}
		})
	}
}

// Coverage of a schema-level facade finding (the schema rules produce
// them; here one is built by hand): the witness goes through the tool's own
// facade block.
func TestCoverageOfInputFinding(t *testing.T) {
	t.Parallel()
	old := mustSet(t, `{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}]}`)
	new := mustSet(t, `{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}}]}`)
	finding := func() []Change {
		return []Change{
			{Rule: "x", Level: Facade, Direction: Input, Tool: "search", Witness: json.RawMessage(`{"q":"cats"}`)},
			{Rule: "y", Level: Facade, Direction: Output, Tool: "search", Witness: json.RawMessage(`{"q":"cats"}`)},
			{Rule: "z", Level: Facade, Direction: Input, Tool: "search"},
		}
	}
	c := &comparison{old: old, new: new}
	cs := finding()
	c.cover(cs, facade.File{"search": {Rename: map[string]string{"q": "query"}}})
	if !cs[0].Covered || cs[1].Covered || cs[2].Covered {
		t.Errorf("covered = %v %v %v, want true false false", cs[0].Covered, cs[1].Covered, cs[2].Covered)
	}
	if cs[2].Reason != "not covered: the finding has no witness to translate" {
		t.Errorf("reason = %q", cs[2].Reason)
	}
	cs = finding()
	c.cover(cs, facade.File{"search": {Rename: map[string]string{"q": "text"}}})
	if cs[0].Covered || !strings.Contains(cs[0].Reason, "query") {
		t.Errorf("wrong rename: covered %v reason %q", cs[0].Covered, cs[0].Reason)
	}
}
