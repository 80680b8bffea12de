package facade_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// actionsListV031 is the input schema of github-mcp-server v0.31.0's
// actions_list, reduced to what matters here (open, as upstream's is).
const actionsListV031 = `{"type":"object","properties":{
  "method":{"type":"string","enum":["list_workflows","list_workflow_runs"]},
  "owner":{"type":"string"},"repo":{"type":"string"},
  "per_page":{"type":"number","minimum":1,"maximum":100},"resource_id":{"type":"string"},
  "workflow_runs_filter":{"type":"object","properties":{
    "status":{"type":"string","enum":["queued","in_progress","completed"]},
    "branch":{"type":"string"}},"additionalProperties":false}},
  "required":["method","owner","repo"]}`

const nested = `{"type":"object","properties":{
  "filters":{"type":"object","properties":{"state":{"enum":["OPEN","CLOSED"]},"tag":{"type":"string"},"level":{"enum":["low","high"]}},"additionalProperties":false},
  "items":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"n":{"type":"integer"}},"required":["title"],"additionalProperties":false}},
  "page":{"type":"object","properties":{"size":{"type":"integer"}},"required":["size"]},
  "query":{"type":"string"}},
  "additionalProperties":false}`

func TestApplyNested(t *testing.T) {
	t.Parallel()
	runs := facade.File{"actions_list": {Aliases: []facade.Alias{{
		Name:   "list_workflow_runs",
		Inject: map[string]any{"method": "list_workflow_runs"},
		Rename: map[string]string{"perPage": "per_page", "workflow_id": "resource_id", "status": "/workflow_runs_filter/status", "branch": "/workflow_runs_filter/branch"},
	}}}}
	tests := []struct {
		name      string
		f         facade.File
		target    string
		schema    string
		call      string
		want      string
		wantSteps []string
		wantErr   string
	}{
		{
			name: "moves into a sub-object, creating it (github-mcp-server v0.30.3 list_workflow_runs -> v0.31.0 actions_list)",
			f:    runs, target: "actions_list", schema: actionsListV031,
			call:      `{"tool":"list_workflow_runs","arguments":{"owner":"o","repo":"r","workflow_id":"ci.yml","status":"completed","branch":"main","perPage":20}}`,
			want:      `{"tool":"actions_list","arguments":{"method":"list_workflow_runs","owner":"o","repo":"r","resource_id":"ci.yml","workflow_runs_filter":{"status":"completed","branch":"main"},"per_page":20}}`,
			wantSteps: []string{"alias list_workflow_runs -> actions_list", "inject method", "rename branch -> /workflow_runs_filter/branch", "rename perPage -> per_page", "rename status -> /workflow_runs_filter/status", "rename workflow_id -> resource_id"},
		},
		{
			name: "moves into an existing sub-object",
			f:    facade.File{"t": {Rename: map[string]string{"tag": "/filters/tag"}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"tag":"x","filters":{"state":"OPEN"}}}`,
			want:      `{"tool":"t","arguments":{"filters":{"state":"OPEN","tag":"x"}}}`,
			wantSteps: []string{"rename tag -> /filters/tag"},
		},
		{
			name: "renames inside an array element",
			f:    facade.File{"t": {Rename: map[string]string{"/items/0/name": "/items/0/title"}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"items":[{"name":"a"}]}}`,
			want:      `{"tool":"t","arguments":{"items":[{"title":"a"}]}}`,
			wantSteps: []string{"rename /items/0/name -> /items/0/title"},
		},
		{
			name: "maps values at depth, numbers by their JSON text",
			f:    facade.File{"t": {Values: map[string]map[string]any{"/filters/state": {"open": "OPEN"}, "/filters/level": {"1": "low", "2": "high"}}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"filters":{"state":"open","level":2}}}`,
			want:      `{"tool":"t","arguments":{"filters":{"state":"OPEN","level":"high"}}}`,
			wantSteps: []string{"value /filters/level", "value /filters/state"},
		},
		{
			name: "coerces at depth",
			f:    facade.File{"t": {Coerce: map[string]string{"/items/0/n": "integer"}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"items":[{"title":"a","n":"7"}]}}`,
			want:      `{"tool":"t","arguments":{"items":[{"title":"a","n":7}]}}`,
			wantSteps: []string{"coerce /items/0/n"},
		},
		{
			name: "defaults at depth create the parent; YAML numbers become JSON numbers",
			f:    facade.File{"t": {Rename: map[string]string{"q": "query"}, Defaults: map[string]any{"/page/size": 20}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"q":"x"}}`,
			want:      `{"tool":"t","arguments":{"query":"x","page":{"size":20}}}`,
			wantSteps: []string{"rename q -> query", "default /page/size"},
		},
		{
			name: "a rename whose new parent is not an object is skipped: original error",
			f:    facade.File{"t": {Rename: map[string]string{"tag": "/query/tag"}}}, target: "t", schema: nested,
			call:    `{"tool":"t","arguments":{"tag":"x","query":"q"}}`,
			wantErr: "additional properties 'tag'",
		},
		{
			name: "an escaped pointer token",
			f:    facade.File{"t": {Rename: map[string]string{"/a~1b": "query"}}}, target: "t", schema: nested,
			call:      `{"tool":"t","arguments":{"a/b":"x"}}`,
			want:      `{"tool":"t","arguments":{"query":"x"}}`,
			wantSteps: []string{"rename /a~1b -> query"},
		},
		{
			name: "an invalid pointer is a facade error",
			f:    facade.File{"t": {Rename: map[string]string{"/a~2": "query"}}}, target: "t", schema: nested,
			call:    `{"tool":"t","arguments":{"x":1}}`,
			wantErr: `"~" must be followed by 0 or 1`,
		},
		{
			name: "inject at depth",
			f:    facade.File{"t": {Aliases: []facade.Alias{{Name: "old", Inject: map[string]any{"/filters/state": "OPEN"}}}}}, target: "t", schema: nested,
			call:      `{"tool":"old","arguments":{"query":"x"}}`,
			want:      `{"tool":"t","arguments":{"query":"x","filters":{"state":"OPEN"}}}`,
			wantSteps: []string{"alias old -> t", "inject /filters/state"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := decodeArgs(t, tt.call)
			call := facade.Call{Tool: raw["tool"].(string), Arguments: raw["arguments"].(map[string]any)}
			before, _ := json.Marshal(call)
			got, steps, err := facade.Apply(tt.f, tt.target, mustValidator(t, tt.schema), call)
			if after, _ := json.Marshal(call); string(after) != string(before) {
				t.Errorf("Apply modified its input call: %s -> %s", before, after)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gotSteps []string
			for _, s := range steps {
				gotSteps = append(gotSteps, s.String())
			}
			if d := cmp.Diff(tt.wantSteps, gotSteps); d != "" {
				t.Errorf("steps mismatch (-want +got):\n%s", d)
			}
			gotJSON, _ := json.Marshal(got)
			if d := cmp.Diff(decodeArgs(t, tt.want), decodeArgs(t, string(gotJSON))); d != "" {
				t.Errorf("call mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestApplyInvalidPointerIsErrFacade(t *testing.T) {
	t.Parallel()
	f := facade.File{"t": {Defaults: map[string]any{"/a~": 1}}}
	_, _, err := facade.Apply(f, "t", func(map[string]any) error { return errors.New("invalid") }, facade.Call{Tool: "t", Arguments: map[string]any{}})
	if !errors.Is(err, facade.ErrFacade) {
		t.Fatalf("err = %v, want ErrFacade", err)
	}
}

func TestCoerce(t *testing.T) {
	t.Parallel()
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		in      any
		to      string
		want    any
		changed bool
	}{
		{n("20"), "string", "20", true},
		{n("1.50"), "string", "1.50", true},
		{1.5, "string", "1.5", true},
		{true, "string", "true", true},
		{"x", "string", "x", false},
		{nil, "string", nil, false},
		{"20", "number", n("20"), true},
		{"-1.5e3", "number", n("-1.5e3"), true},
		{" 20", "number", " 20", false},
		{"+20", "number", "+20", false},
		{"020", "number", "020", false},
		{"0x10", "number", "0x10", false},
		{"NaN", "number", "NaN", false},
		{"20", "integer", n("20"), true},
		{"2.0", "integer", n("2.0"), true},
		{"1e2", "integer", n("1e2"), true},
		{"2.5", "integer", "2.5", false},
		{n("3"), "integer", n("3"), false},
		{"true", "boolean", true, true},
		{"false", "boolean", false, true},
		{"True", "boolean", "True", false},
		{"1", "boolean", "1", false},
		{"x", "array", []any{"x"}, true},
		{map[string]any{"a": "b"}, "array", []any{map[string]any{"a": "b"}}, true},
		{[]any{"x"}, "array", []any{"x"}, false},
		{nil, "array", nil, false},
	}
	for _, tt := range tests {
		got, changed, err := facade.Coerce(tt.in, tt.to)
		if err != nil {
			t.Errorf("Coerce(%#v, %s): %v", tt.in, tt.to, err)
			continue
		}
		if changed != tt.changed {
			t.Errorf("Coerce(%#v, %s): changed = %v", tt.in, tt.to, changed)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Coerce(%#v, %s): mismatch (-want +got):\n%s", tt.in, tt.to, d)
		}
	}
	if _, _, err := facade.Coerce("x", "date"); !errors.Is(err, facade.ErrFacade) {
		t.Errorf("unknown coercion: err = %v, want ErrFacade", err)
	}
}

// FuzzFacadeApply: Apply never panics, never modifies its input, and a
// call it returns without error validates against the target's schema.
func FuzzFacadeApply(f *testing.F) {
	schemas := []string{searchCode, actionsListV031, nested, `true`, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`}
	f.Add(`{"q":"x","mode":"fast","tags":"a"}`, `{"t":{"rename":{"q":"query"},"defaults":{"limit":20},"coerce":{"limit":"integer","tags":"array"},"values":{"mode":{"fast":"FAST"}}}}`, uint8(0), "t")
	f.Add(`{"owner":"o","repo":"r","status":"completed","perPage":"20"}`, `{"t":{"coerce":{"per_page":"number"},"aliases":[{"name":"old","inject":{"method":"list_workflow_runs"},"rename":{"perPage":"per_page","status":"/workflow_runs_filter/status"}}]}}`, uint8(1), "old")
	f.Add(`{"tag":"x","filters":{"state":"open"},"items":[{"name":"a","n":"1"}]}`, `{"t":{"rename":{"tag":"/filters/tag","/items/0/name":"/items/0/title","/x/y":"/x"},"values":{"/filters/state":{"open":"OPEN"}},"coerce":{"/items/0/n":"integer"}}}`, uint8(2), "t")
	f.Add(`{"a":"5"}`, `{"t":{"coerce":{"a":"array","/a/0":"integer"},"rename":{"/a":"/a/b"}}}`, uint8(4), "t")
	compiled := make([]func(map[string]any) error, len(schemas))
	for i, s := range schemas {
		doc, err := schema.Decode([]byte(s))
		if err != nil {
			f.Fatal(err)
		}
		c, err := schema.CompileAny(doc)
		if err != nil {
			f.Fatal(err)
		}
		compiled[i] = func(a map[string]any) error { return c.Validate(a) }
	}
	f.Fuzz(func(t *testing.T, argsJSON, facadeJSON string, which uint8, tool string) {
		v, err := schema.Decode([]byte(argsJSON))
		if err != nil {
			return
		}
		args, ok := v.(map[string]any)
		if !ok {
			return
		}
		var file facade.File
		if err := yaml.Unmarshal([]byte(facadeJSON), &file); err != nil {
			return
		}
		validate := compiled[int(which)%len(compiled)]
		before, _ := json.Marshal(args)
		got, _, err := facade.Apply(file, "t", validate, facade.Call{Tool: tool, Arguments: args})
		if after, _ := json.Marshal(args); string(after) != string(before) {
			t.Fatalf("Apply modified its input: %s -> %s", before, after)
		}
		if err != nil {
			return
		}
		if got.Tool != "t" {
			t.Fatalf("translated to tool %q, want t", got.Tool)
		}
		if err := validate(got.Arguments); err != nil {
			t.Fatalf("Apply returned arguments that do not validate: %v\nargs %s\nfacade %s\ngot %v", err, argsJSON, facadeJSON, got.Arguments)
		}
	})
}
