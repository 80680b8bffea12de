package facade_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

func mustValidator(t *testing.T, schemaJSON string) func(map[string]any) error {
	t.Helper()
	doc, err := schema.Decode([]byte(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.CompileAny(doc)
	if err != nil {
		t.Fatal(err)
	}
	return func(args map[string]any) error { return c.Validate(args) }
}

func decodeArgs(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := schema.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

const actionsList = `{"type":"object","properties":{"method":{"type":"string","enum":["list_workflows","list_workflow_runs"]},"owner":{"type":"string"},"repo":{"type":"string"},"per_page":{"type":"integer"}},"required":["method","owner","repo"],"additionalProperties":false}`

const searchCode = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"mode":{"enum":["FAST","SLOW"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["query","limit"],"additionalProperties":false}`

func TestApply(t *testing.T) {
	t.Parallel()
	consolidated := facade.File{"actions_list": {Aliases: []facade.Alias{{Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"}, Rename: map[string]string{"perPage": "per_page"}}}}}
	searchFacade := facade.File{"search_code": {
		Rename:   map[string]string{"q": "query"},
		Defaults: map[string]any{"limit": json.Number("20")},
		Coerce:   map[string]string{"limit": "integer", "tags": "array"},
		Values:   map[string]map[string]any{"mode": {"fast": "FAST", "slow": "SLOW"}},
		Aliases:  []facade.Alias{{Name: "search_docs"}, {Name: "find", Inject: map[string]any{"limit": json.Number("5")}}},
	}}

	tests := []struct {
		name      string
		f         facade.File
		target    string
		schema    string
		call      string // {"tool":…, "arguments":…}
		want      string // translated call, or "" when an error is expected
		wantSteps []string
		wantErr   string
	}{
		{
			name: "consolidated alias injects method and renames perPage (cases.json replay-consolidated-tool)",
			f:    consolidated, target: "actions_list", schema: actionsList,
			call:      `{"tool":"list_workflows","arguments":{"owner":"o","repo":"r","perPage":10}}`,
			want:      `{"tool":"actions_list","arguments":{"method":"list_workflows","owner":"o","repo":"r","per_page":10}}`,
			wantSteps: []string{"alias list_workflows -> actions_list", "inject method", "rename perPage -> per_page"},
		},
		{
			name: "unknown tool has no route",
			f:    consolidated, target: "actions_list", schema: actionsList,
			call:    `{"tool":"list_workflow_runs","arguments":{"owner":"o","repo":"r"}}`,
			wantErr: "no route",
		},
		{
			name: "valid call passes untouched",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call: `{"tool":"search_code","arguments":{"query":"x","limit":3}}`,
			want: `{"tool":"search_code","arguments":{"query":"x","limit":3}}`,
		},
		{
			name: "rename, default, value map and coercions",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:      `{"tool":"search_code","arguments":{"q":"x","mode":"fast","tags":"a"}}`,
			want:      `{"tool":"search_code","arguments":{"query":"x","limit":20,"mode":"FAST","tags":["a"]}}`,
			wantSteps: []string{"rename q -> query", "value mode", "coerce tags", "default limit"},
		},
		{
			name: "string limit coerced to integer",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:      `{"tool":"search_code","arguments":{"query":"x","limit":"7"}}`,
			want:      `{"tool":"search_code","arguments":{"query":"x","limit":7}}`,
			wantSteps: []string{"coerce limit"},
		},
		{
			name: "fraction is not coerced to integer: original error",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:    `{"tool":"search_code","arguments":{"query":"x","limit":"7.5"}}`,
			wantErr: "limit",
		},
		{
			name: "renamed argument of the wrong type is rejected (cases.json replay-rename-facade)",
			f:    facade.File{"search_code": {Rename: map[string]string{"q": "query"}}}, target: "search_code", schema: searchCode,
			call:    `{"tool":"search_code","arguments":{"q":3,"limit":1}}`,
			wantErr: "query",
		},
		{
			name: "plain alias routes; tool-level block applies on top when needed",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:      `{"tool":"search_docs","arguments":{"q":"x"}}`,
			want:      `{"tool":"search_code","arguments":{"query":"x","limit":20}}`,
			wantSteps: []string{"alias search_docs -> search_code", "rename q -> query", "default limit"},
		},
		{
			name: "alias inject conflicting with a sent argument is an error",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:    `{"tool":"find","arguments":{"query":"x","limit":9}}`,
			wantErr: `argument "limit" is 9, inject wants 5`,
		},
		{
			name: "alias inject equal to a sent argument (other spelling) is fine",
			f:    searchFacade, target: "search_code", schema: searchCode,
			call:      `{"tool":"find","arguments":{"query":"x","limit":5.0}}`,
			want:      `{"tool":"search_code","arguments":{"query":"x","limit":5}}`,
			wantSteps: []string{"alias find -> search_code", "inject limit"},
		},
		{
			name: "nested keys: a move out of a sub-object prunes the emptied parent",
			f:    facade.File{"search_code": {Rename: map[string]string{"/a/b": "/query"}, Defaults: map[string]any{"limit": 1}}}, target: "search_code", schema: searchCode,
			call:      `{"tool":"search_code","arguments":{"a":{"b":"x"}}}`,
			want:      `{"tool":"search_code","arguments":{"query":"x","limit":1}}`,
			wantSteps: []string{"rename /a/b -> /query", "default limit"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var call facade.Call
			raw := decodeArgs(t, tt.call)
			call.Tool = raw["tool"].(string)
			call.Arguments = raw["arguments"].(map[string]any)
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
			want := decodeArgs(t, tt.want)
			gotJSON, _ := json.Marshal(got)
			gotV := decodeArgs(t, string(gotJSON))
			if d := cmp.Diff(want, gotV); d != "" {
				t.Errorf("call mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestApplyNoRouteIsSentinel(t *testing.T) {
	t.Parallel()
	_, _, err := facade.Apply(facade.File{}, "x", func(map[string]any) error { return nil }, facade.Call{Tool: "y"})
	if !errors.Is(err, facade.ErrNoRoute) {
		t.Fatalf("err = %v, want ErrNoRoute", err)
	}
}
