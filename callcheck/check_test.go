package callcheck

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

func compile(t testing.TB, src string) (*schema.Compiled, *canon.Value) {
	t.Helper()
	v, err := canon.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(&v)
	if err != nil {
		t.Fatal(err)
	}
	return c, &v
}

func decode(t testing.TB, src string) any {
	t.Helper()
	v, err := schema.Decode([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, args string
		want               string // "" means valid
	}{
		{
			name:   "valid",
			schema: `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`,
			args:   `{"query":"x"}`,
		},
		{
			name:   "renamed argument",
			schema: `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"],"additionalProperties":false}`,
			args:   `{"q":"repo:x foo","limit":5}`,
			want: `invalid arguments:
- /q: unexpected property (allowed: query, limit)
- /query: missing required property; expected a string
example of valid arguments: {"limit":5,"query":"x"}`,
		},
		{
			name:   "wrong type keeps the bounds",
			schema: `{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":100}}}`,
			args:   `{"limit":"20"}`,
			want: `invalid arguments:
- /limit: got string, expected an integer from 1 to 100
example of valid arguments: {}`,
		},
		{
			name:   "nested enum",
			schema: `{"type":"object","properties":{"filters":{"type":"object","properties":{"state":{"type":"string","enum":["OPEN","CLOSED"]}},"required":["state"]}},"required":["filters"]}`,
			args:   `{"filters":{"state":"open"}}`,
			want: `invalid arguments:
- /filters/state: got "open", expected one of "OPEN", "CLOSED"
example of valid arguments: {"filters":{"state":"OPEN"}}`,
		},
		{
			name:   "ref and array constraints",
			schema: `{"type":"object","$defs":{"path":{"type":"string","minLength":1}},"properties":{"paths":{"type":"array","items":{"$ref":"#/$defs/path"},"minItems":1}},"required":["paths"]}`,
			args:   `{"paths":[]}`,
			want: `invalid arguments:
- /paths: got [] (0 items), expected an array of string (of at least 1 character) with at least 1 item
example of valid arguments: {"paths":["x"]}`,
		},
		{
			name:   "missing ref property says what it expects",
			schema: `{"type":"object","$defs":{"n":{"type":"number","exclusiveMinimum":0}},"properties":{"n":{"$ref":"#/$defs/n"}},"required":["n"]}`,
			args:   `{}`,
			want: `invalid arguments:
- /n: missing required property; expected a number > 0
example of valid arguments: {"n":1}`,
		},
		{
			name:   "anyOf",
			schema: `{"type":"object","properties":{"id":{"anyOf":[{"type":"integer"},{"type":"string","format":"uuid"}]}},"required":["id"]}`,
			args:   `{"id":true}`,
			want: `invalid arguments:
- /id: matches none of the alternatives; expected an integer, or a string (format uuid)
example of valid arguments: {"id":0}`,
		},
		{
			name:   "draft-07 with format and pattern",
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"when":{"type":"string","format":"date-time"},"code":{"type":"string","pattern":"^[A-Z]{3}$"}},"required":["when"]}`,
			args:   `{"code":"usd"}`,
			want: `invalid arguments:
- /code: got "usd" (3 characters), expected a string (matching ^[A-Z]{3}$)
- /when: missing required property; expected a string (format date-time)
example of valid arguments: {"when":"2024-01-01T00:00:00Z"}`,
		},
		{
			// Issue 11: a pattern had no example line (callcheck had its
			// own generator, which ignored patterns).
			name:   "pattern gets an example",
			schema: `{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}},"required":["code"]}`,
			args:   `{}`,
			want: `invalid arguments:
- /code: missing required property; expected a string (matching ^[A-Z]{3}$)
example of valid arguments: {"code":"AAA"}`,
		},
		{
			name:   "no example possible",
			schema: `{"type":"object","properties":{"code":{"type":"string","minLength":3,"maxLength":2}},"required":["code"]}`,
			args:   `{}`,
			want: `invalid arguments:
- /code: missing required property; expected a string (of 3 to 2 characters)`,
		},
		{
			name:   "not an object",
			schema: `{"type":"object"}`,
			args:   `[1]`,
			want: `invalid arguments:
- (arguments): got array, expected an object
example of valid arguments: {}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, s := compile(t, tt.schema)
			ok, got := Check(c, s, decode(t, tt.args))
			if ok != (tt.want == "") {
				t.Errorf("ok = %v", ok)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestExampleRealData builds an example for every tool of the real
// snapshots: when Example says ok, the example validates (Example checks it
// itself; this test checks Example's claim independently) and it exists
// for nearly every tool.
func TestExampleRealData(t *testing.T) {
	t.Parallel()
	files := []string{
		"../testdata/realdata/github-mcp-server/v0.31.0.json",
		"../testdata/realdata/github-mcp-server/v1.10.1.json",
		"../testdata/realdata/server-filesystem/2026.7.10.json",
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		set, err := toolset.Decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		built := 0
		for _, tool := range set.Tools {
			s := tool.InputSchema()
			c, err := schema.Compile(s)
			if err != nil {
				t.Fatalf("%s %s: %v", f, tool.Name, err)
			}
			ex, ok := Example(c, s, map[string]any{})
			if !ok {
				t.Logf("%s: no example for %s", f, tool.Name)
				continue
			}
			built++
			raw, _ := json.Marshal(ex)
			inst, err := schema.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(inst); err != nil {
				t.Errorf("%s %s: example %s does not validate: %v", f, tool.Name, raw, err)
			}
		}
		if built < len(set.Tools)*9/10 {
			t.Errorf("%s: examples for %d of %d tools", f, built, len(set.Tools))
		}
	}
}

func TestMessageNamesEveryProblem(t *testing.T) {
	t.Parallel()
	c, s := compile(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["a","b","c"],"additionalProperties":false}`)
	ok, msg := Check(c, s, decode(t, `{"a":1,"b":"x","d":null}`))
	if ok {
		t.Fatal("valid")
	}
	for _, want := range []string{"- /a: got number", "- /b: got string", "- /c: missing required property; expected a boolean", "- /d: unexpected property"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestCloseNames(t *testing.T) {
	t.Parallel()
	names := []string{"actions_get", "actions_list", "get_me", "list_issues", "search_code", "search_issues", "list_workflows_v2"}
	tests := []struct {
		name string
		want []string
	}{
		{"serch_code", []string{"search_code"}},
		{"list_workflows", []string{"list_workflows_v2"}},
		{"list_issue", []string{"list_issues"}},
		{"actions", []string{"actions_get", "actions_list"}},
		{"zzz", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, CloseNames(tt.name, names, 3)); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, d)
		}
	}
}

func TestLines(t *testing.T) {
	t.Parallel()
	many := make([]Problem, MaxLines+3)
	for i := range many {
		many[i] = Problem{Pointer: "/p" + strings.Repeat("x", i), Message: "m"}
	}
	tests := []struct {
		name string
		ps   []Problem
		root string
		want string
	}{
		{"none", nil, "(output)", ""},
		{"root label", []Problem{{Message: "got array, expected an object"}, {Pointer: "/n", Message: "missing required property"}}, "(output)",
			"\n- (output): got array, expected an object\n- /n: missing required property"},
		{"capped", many, "(arguments)",
			"\n- /p: m\n- /px: m\n- /pxx: m\n- /pxxx: m\n- /pxxxx: m\n- /pxxxxx: m\n- /pxxxxxx: m\n- /pxxxxxxx: m\n- /pxxxxxxxx: m\n- /pxxxxxxxxx: m\n- … and 3 more"},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, Lines(tt.ps, tt.root)); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, d)
		}
	}
}
