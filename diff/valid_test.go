package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// toolProblems reports lint's validity errors by JSON Pointer, and marks
// the ones where the input schema is gone (absent, null, not an object).
func TestToolProblems(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 129)
	tests := []struct {
		name string
		tool string
		want []string // "path" or "path gone"
	}{
		{"valid", `{"name":"get.user-v2_X","inputSchema":{"type":"object"}}`, nil},
		{"128 characters", `{"name":"` + long[:128] + `","inputSchema":{"type":"object"}}`, nil},
		{"129 characters", `{"name":"` + long + `","inputSchema":{"type":"object"}}`, []string{"/name"}},
		{"empty name", `{"name":"","inputSchema":{"type":"object"}}`, []string{"/name"}},
		{"slash in name", `{"name":"a/b","inputSchema":{"type":"object"}}`, []string{"/name"}},
		{"input missing", `{"name":"a"}`, []string{"/inputSchema gone"}},
		{"input null (github v0.24.0 get_me)", `{"name":"a","inputSchema":null}`, []string{"/inputSchema gone"}},
		{"input boolean", `{"name":"a","inputSchema":true}`, []string{"/inputSchema gone"}},
		{"input root string (cases.json canon-root-not-object)", `{"name":"x","inputSchema":{"type":"string"}}`, []string{"/inputSchema/type"}},
		{"input without type (filesystem 0.5.1 unpinned)", `{"name":"a","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#"}}`, []string{"/inputSchema"}},
		{"dangling $ref", `{"name":"a","inputSchema":{"type":"object","properties":{"p":{"$ref":"#/$defs/missing"}}}}`, []string{"/inputSchema/properties/p/$ref"}},
		{"output not an object schema", `{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}`, []string{"/outputSchema/type"}},
		{"output null", `{"name":"a","inputSchema":{"type":"object"},"outputSchema":null}`, []string{"/outputSchema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := canon.Parse([]byte(tt.tool))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range toolProblems(&toolset.Tool{Name: canon.ToolName(&v), Value: v}) {
				if p.Msg == "" {
					t.Errorf("%s: empty message", p.Path)
				}
				if p.schemaGone {
					got = append(got, p.Path+" gone")
				} else {
					got = append(got, p.Path)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// tool-invalid reports what became invalid, not what already was. Names
// equal ignoring case are valid MCP (names are case-sensitive, MCP
// 2025-11-25; issue 9): no finding.
func TestInvalidFindings(t *testing.T) {
	t.Parallel()
	old := mustSet(t, `{"tools":[
	 {"name":"stays_bad","inputSchema":{"type":"string"}},
	 {"name":"turns_bad","inputSchema":{"type":"object"}}]}`)
	new := mustSet(t, `{"tools":[
	 {"name":"stays_bad","inputSchema":{"type":"string"}},
	 {"name":"turns_bad","inputSchema":{"type":"object"},"outputSchema":{"type":"string"}},
	 {"name":"Get_User","inputSchema":{"type":"object"}},
	 {"name":"get_user","inputSchema":{"type":"object"}}]}`)
	r := Compare(old, new, Options{Now: fixtureNow})
	var got []string
	for _, c := range r.Changes {
		if c.Rule == "tool-invalid" {
			got = append(got, c.Tool+" "+c.Path+": "+c.Message)
		}
	}
	want := []string{
		`turns_bad /outputSchema/type: invalid MCP: ` + outputNotObject(t),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if r.Level != Breaking {
		t.Errorf("level %v, want breaking", r.Level)
	}
}

// errorText is the same on every run although jsonschema builds some
// lists by iterating maps.
func TestErrorTextDeterministic(t *testing.T) {
	t.Parallel()
	v, err := canon.Parse([]byte(`{"type":"object","properties":{"n":{"type":"integer"},"m":{"type":"integer"}},"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := schema.Compile(&v)
	if err != nil {
		t.Fatal(err)
	}
	inst := map[string]any{"e": 1, "d": 1, "c": 1, "b": 1, "a": 1, "n": "x", "m": "y"}
	want := errorText(sc.Validate(inst))
	for range 30 {
		if got := errorText(sc.Validate(inst)); got != want {
			t.Fatalf("errorText differs between runs:\n%s\n%s", want, got)
		}
	}
	if !strings.Contains(want, "additional properties 'a', 'b', 'c', 'd', 'e' not allowed") || !strings.Contains(want, "at '/m'") {
		t.Errorf("errorText = %q", want)
	}
}

// outputNotObject returns lint's message for an outputSchema of type string.
func outputNotObject(t *testing.T) string {
	v, err := canon.Parse([]byte(`{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	probs := toolProblems(&toolset.Tool{Name: "x", Value: v})
	if len(probs) != 1 {
		t.Fatalf("want one problem, got %v", probs)
	}
	return probs[0].Msg
}
