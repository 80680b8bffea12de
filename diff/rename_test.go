package diff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStyleKey(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"perPage":            "per_page",
		"per_page":           "per_page",
		"per-page":           "per_page",
		"PerPage":            "per_page",
		"photos.list":        "photos_list",
		"getHTMLPage":        "get_html_page",
		"issue_id2":          "issue_id2",
		"listV2Items":        "list_v2_items",
		"repo:owner/name":    "repo_owner_name",
		"__double__under__":  "double_under",
		"list_workflow_runs": "list_workflow_runs",
	}
	for in, want := range tests {
		if got := styleKey(in); got != want {
			t.Errorf("styleKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDerivedValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		old, target string
		want        []string
	}{
		{"list_workflows", "actions_list", []string{"list_workflows", "workflows"}},
		{"get_issue_comments", "issue_read", []string{"get_issue_comments", "get_comments"}},
		{"listProjects", "projects_list", []string{"listProjects", "list_projects"}},
		{"projects_list", "projects_list", []string{"projects_list"}}, // nothing left: no empty value
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, derivedValues(tt.old, tt.target)); d != "" {
			t.Errorf("derivedValues(%q, %q) mismatch (-want +got):\n%s", tt.old, tt.target, d)
		}
	}
}

// TestRoutes pins what is and is not a rename or consolidation.
func TestRoutes(t *testing.T) {
	t.Parallel()
	obj := func(props string, req string) string {
		return fmt.Sprintf(`{"type":"object","properties":{%s},"required":[%s]}`, props, req)
	}
	tool := func(name, schema string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":%s}`, name, schema)
	}
	set := func(tools ...string) string {
		s := `{"tools":[`
		for i, t := range tools {
			if i > 0 {
				s += ","
			}
			s += t
		}
		return s + "]}"
	}
	album := obj(`"album":{"type":"string"}`, `"album"`)
	// runs is a consolidated tool with a filter sub-object and one free id
	// argument, after github-mcp-server v0.31.0's actions_list.
	runs := func(extra string) string {
		return tool("runs", obj(`"method":{"type":"string","enum":["list_runs","get_run","get_a","get_b"]},"owner":{"type":"string"},`+
			`"resource_id":{"type":"string"},"runs_filter":{"type":"object","properties":{"branch":{"type":"string"},"eventType":{"type":"string"}}}`+extra, `"method","owner"`))
	}
	tests := []struct {
		name     string
		old, new string
		want     []string // rule tool [-> target]
		facade   string   // the block suggested by the first route, as JSON
		reason   string   // part of the first tool-removed finding's reason
		notice   string   // part of the first route's notice
	}{
		{
			name: "same style key, same schema: renamed",
			old:  set(tool("photos.list", album)), new: set(tool("photosList", album)),
			want: []string{"tool-renamed photos.list -> photosList"},
		},
		{
			name: "different names, identical unique schema: renamed",
			old:  set(tool("fetch_album", album)), new: set(tool("album_get", album)),
			want: []string{"tool-renamed fetch_album -> album_get"},
		},
		{
			name: "identical schema shared by two added tools: ambiguous, removed",
			old:  set(tool("fetch_album", album)), new: set(tool("album_get", album), tool("album_peek", album)),
			want: []string{"tool-added album_get", "tool-added album_peek", "tool-removed fetch_album"},
		},
		{
			name: "schemas without arguments never pair by schema",
			old:  set(tool("get_me", `{"type":"object"}`)), new: set(tool("whoami", `{"type":"object"}`)),
			want: []string{"tool-removed get_me", "tool-added whoami"},
		},
		{
			name: "same style key but an argument type changed: removed",
			old:  set(tool("photos.list", album)), new: set(tool("photos_list", obj(`"album":{"type":"integer"}`, `"album"`))),
			want: []string{"tool-removed photos.list", "tool-added photos_list"},
		},
		{
			name: "same style key but a new required argument: removed",
			old:  set(tool("photos.list", album)), new: set(tool("photos_list", obj(`"album":{"type":"string"},"year":{"type":"integer"}`, `"album","year"`))),
			want: []string{"tool-removed photos.list", "tool-added photos_list"},
		},
		{
			name: "integer argument fits a number one; the witness decides the rest",
			old:  set(tool("photos.list", obj(`"n":{"type":"integer"}`, ``))), new: set(tool("photos_list", obj(`"n":{"type":"number"}`, ``))),
			want: []string{"tool-renamed photos.list -> photos_list"},
		},
		{
			name: "constraint the witness breaks: removed, with the reason",
			old:  set(tool("photos.list", obj(`"n":{"type":"integer","minimum":1}`, `"n"`))), new: set(tool("photos_list", obj(`"n":{"type":"integer","minimum":5}`, `"n"`))),
			want: []string{"tool-removed photos.list", "tool-added photos_list"},
		},
		{
			name: "consolidation into an existing tool by action enum",
			old: set(tool("delete_label", obj(`"name":{"type":"string"}`, `"name"`)),
				tool("label_write", obj(`"action":{"type":"string","enum":["create","delete_label"]},"name":{"type":"string"}`, `"action","name"`))),
			new:  set(tool("label_write", obj(`"action":{"type":"string","enum":["create","delete_label"]},"name":{"type":"string"}`, `"action","name"`))),
			want: []string{"tool-consolidated delete_label -> label_write"},
		},
		{
			name: "discriminator is not a string enum: removed",
			old:  set(tool("delete_label", obj(`"name":{"type":"string"}`, `"name"`))),
			new:  set(tool("label_write", obj(`"method":{"type":"string"},"name":{"type":"string"}`, `"method","name"`))),
			want: []string{"tool-removed delete_label", "tool-added label_write"},
		},
		{
			name: "old tool had the discriminator itself: removed",
			old:  set(tool("delete_label", obj(`"name":{"type":"string"},"method":{"type":"string"}`, `"name"`))),
			new:  set(tool("label_write", obj(`"method":{"type":"string","enum":["delete_label"]},"name":{"type":"string"}`, `"method","name"`))),
			want: []string{"tool-removed delete_label", "tool-added label_write"},
		},
		{
			name: "arguments move into a sub-object by name, case style aside",
			old:  set(tool("list_runs", obj(`"owner":{"type":"string"},"branch":{"type":"string"},"event_type":{"type":"string"}`, `"owner"`))),
			new:  set(runs("")),
			want: []string{"tool-consolidated list_runs -> runs", "tool-added runs"},
			facade: `{"aliases":[{"name":"list_runs","inject":{"method":"list_runs"},` +
				`"rename":{"branch":"/runs_filter/branch","event_type":"/runs_filter/eventType"}}]}`,
		},
		{
			name: "an argument that fits two sub-objects: ambiguous, removed",
			old:  set(tool("list_runs", obj(`"owner":{"type":"string"},"branch":{"type":"string"}`, `"owner"`))),
			new:  set(runs(`,"jobs_filter":{"type":"object","properties":{"branch":{"type":"string"}}}`)),
			want: []string{"tool-removed list_runs", "tool-added runs"}, reason: `"branch" matches "/runs_filter/branch", "/jobs_filter/branch" in runs: ambiguous`,
		},
		{
			name: "a sub-object that requires what old calls do not send",
			old:  set(tool("list_runs", obj(`"owner":{"type":"string"},"branch":{"type":"string"}`, `"owner"`))),
			new: set(tool("runs", obj(`"method":{"type":"string","enum":["list_runs"]},"owner":{"type":"string"},`+
				`"runs_filter":{"type":"object","properties":{"branch":{"type":"string"}},"required":["branch","since"]}`, `"method","owner"`))),
			want: []string{"tool-removed list_runs", "tool-added runs"}, reason: `runs requires "/runs_filter/since" once "runs_filter" is sent`,
		},
		{
			name: "a move the validator refuses is no route",
			old:  set(tool("list_runs", obj(`"owner":{"type":"string"},"branch":{"type":"string"}`, `"owner"`))),
			new: set(tool("runs", obj(`"method":{"type":"string","enum":["list_runs"]},"owner":{"type":"string"},`+
				`"runs_filter":{"type":"object","properties":{"branch":{"type":"string","pattern":"^refs/"}}}`, `"method","owner"`))),
			want: []string{"tool-removed list_runs", "tool-added runs"}, reason: `is rejected after translation`,
		},
		{
			name: "an integer id goes to the only free id argument, coerced to a string",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"run_id":{"type":"integer"}`, `"owner","run_id"`))),
			new:  set(runs("")),
			want: []string{"tool-consolidated get_run -> runs", "tool-added runs"},
			facade: `{"coerce":{"resource_id":"string"},"aliases":[{"name":"get_run","inject":{"method":"get_run"},` +
				`"rename":{"run_id":"resource_id"}}]}`,
			notice: "run_id -> resource_id: matched as the only free id argument of runs, not by name",
		},
		{
			name: "two free id arguments: ambiguous, removed",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"run_id":{"type":"integer"}`, `"owner","run_id"`))),
			new:  set(runs(`,"job_id":{"type":"string"}`)),
			want: []string{"tool-removed get_run", "tool-added runs"}, reason: `"run_id" is an id and runs has several free id arguments ("resource_id", "job_id"): ambiguous`,
		},
		{
			name: "two old ids for one free id argument: removed",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"run_id":{"type":"integer"},"job_id":{"type":"integer"}`, `"owner","run_id"`))),
			new:  set(runs("")),
			want: []string{"tool-removed get_run", "tool-added runs"}, reason: `arguments "run_id" and "job_id" both map to "resource_id"`,
		},
		{
			name: "a name that does not end in an id is not mapped by role",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"run":{"type":"string"}`, `"owner","run"`))),
			new:  set(runs("")),
			want: []string{"tool-removed get_run", "tool-added runs"}, reason: `argument "run" has no counterpart in runs`,
		},
		{
			name: "a string is never coerced to a number (not every string converts)",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"n":{"type":"string"}`, `"owner"`))),
			new:  set(tool("runs", obj(`"method":{"type":"string","enum":["get_run"]},"owner":{"type":"string"},"n":{"type":"integer"}`, `"method","owner"`))),
			want: []string{"tool-removed get_run", "tool-added runs"}, reason: `argument "n" is string, runs takes integer as "n"`,
		},
		{
			name:   "a scalar is coerced into an array whose items accept it",
			old:    set(tool("get_run", obj(`"owner":{"type":"string"},"label":{"type":"string"}`, `"owner"`))),
			new:    set(tool("runs", obj(`"method":{"type":"string","enum":["get_run"]},"owner":{"type":"string"},"label":{"type":"array","items":{"type":"string"}}`, `"method","owner"`))),
			want:   []string{"tool-consolidated get_run -> runs", "tool-added runs"},
			facade: `{"coerce":{"label":"array"},"aliases":[{"name":"get_run","inject":{"method":"get_run"}}]}`,
		},
		{
			name: "but not into an array of another type",
			old:  set(tool("get_run", obj(`"owner":{"type":"string"},"label":{"type":"integer"}`, `"owner"`))),
			new:  set(tool("runs", obj(`"method":{"type":"string","enum":["get_run"]},"owner":{"type":"string"},"label":{"type":"array","items":{"type":"string"}}`, `"method","owner"`))),
			want: []string{"tool-removed get_run", "tool-added runs"}, reason: `argument "label" is integer, runs takes array as "label"`,
		},
		{
			name: "two routes needing different coercions of one argument: the later is refused",
			old: set(tool("get_a", obj(`"owner":{"type":"string"},"x":{"type":"integer"}`, `"owner"`)),
				tool("get_b", obj(`"owner":{"type":"string"},"x":{"type":"object"}`, `"owner"`))),
			new:    set(runs(`,"x":{"type":["string","array"],"items":{"type":"object"}}`)),
			want:   []string{"tool-consolidated get_a -> runs", "tool-removed get_b", "tool-added runs"},
			facade: `{"coerce":{"x":"string"},"aliases":[{"name":"get_a","inject":{"method":"get_a"}}]}`,
			reason: `it needs coerce {x: array} where another route into runs needs string`,
		},
		{
			name: "a sub-object the old tool sent itself is not a place to move into",
			old:  set(tool("list_runs", obj(`"owner":{"type":"string"},"runs_filter":{"type":"object"},"branch":{"type":"string"}`, `"owner"`))),
			new:  set(runs("")),
			want: []string{"tool-removed list_runs", "tool-added runs"}, reason: `argument "branch" has no counterpart in runs`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(mustSet(t, tt.old), mustSet(t, tt.new), Options{Now: fixtureNow})
			var got []string
			var route, removed *Change
			for i, c := range r.Changes {
				switch c.Rule {
				case "tool-renamed", "tool-consolidated":
					got = append(got, c.Rule+" "+c.Tool+" -> "+c.Facade.Tool)
					if route == nil {
						route = &r.Changes[i]
					}
				case "tool-added", "tool-removed":
					got = append(got, c.Rule+" "+c.Tool)
					if removed == nil && c.Rule == "tool-removed" {
						removed = &r.Changes[i]
					}
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
			if tt.facade != "" && route != nil {
				b, err := json.Marshal(route.Facade.Block)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tt.facade, string(b)); d != "" {
					t.Errorf("suggested block mismatch (-want +got):\n%s", d)
				}
			}
			if tt.notice != "" && (route == nil || route.Notice == nil || !strings.Contains(*route.Notice, tt.notice)) {
				t.Errorf("route notice does not contain %q: %+v", tt.notice, route)
			}
			if tt.reason != "" && (removed == nil || !strings.Contains(removed.Reason, tt.reason)) {
				t.Errorf("removal reason does not contain %q: %+v", tt.reason, removed)
			}
		})
	}
}
