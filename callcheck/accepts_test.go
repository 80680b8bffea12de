package callcheck

import (
	"errors"
	"testing"

	"github.com/mcpctl/mcpctl/facade"
)

// TestAccepts: Accepts agrees with CheckCall's Accepted outcome and never
// translates: a call the facade would carry, a call under an alias, an
// invalid call and a tool whose schema failed are all not accepted.
func TestAccepts(t *testing.T) {
	t.Parallel()
	c, s := compile(t, `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)
	tool := &Tool{Name: "search", Schema: s, Compiled: c, Facade: &facade.Block{
		Rename: map[string]string{"q": "query"}, Aliases: []facade.Alias{{Name: "find"}}}}
	broken := &Tool{Name: "search", Err: errors.New("the tool has no inputSchema")}
	args := func(src string) map[string]any { return decode(t, src).(map[string]any) }
	for _, tc := range []struct {
		name string
		tool *Tool
		call facade.Call
		want bool
	}{
		{"valid as sent", tool, facade.Call{Tool: "search", Arguments: args(`{"query":"x"}`)}, true},
		{"carried by the facade", tool, facade.Call{Tool: "search", Arguments: args(`{"q":"x"}`)}, false},
		{"under an alias", tool, facade.Call{Tool: "find", Arguments: args(`{"query":"x"}`)}, false},
		{"invalid", tool, facade.Call{Tool: "search", Arguments: args(`{}`)}, false},
		{"schema failed", broken, facade.Call{Tool: "search", Arguments: args(`{"query":"x"}`)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := tc.tool.Accepts(tc.call)
			if ok != tc.want {
				t.Fatalf("Accepts = %v, want %v", ok, tc.want)
			}
			if cv := CheckCall(tc.tool, tc.call, nil); (cv.Outcome == Accepted) != ok {
				t.Errorf("Accepts = %v but CheckCall's outcome is %v", ok, cv.Outcome)
			}
			if ok && (v.Outcome != Accepted || v.Call.Tool != "search") {
				t.Errorf("verdict = %+v", v)
			}
		})
	}
}
