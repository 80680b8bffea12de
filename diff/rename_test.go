package diff

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStyleKey(t *testing.T) {
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
	tests := []struct {
		name     string
		old, new string
		want     []string // rule tool [-> target]
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(mustSet(t, tt.old), mustSet(t, tt.new), Options{Now: fixtureNow})
			var got []string
			for _, c := range r.Changes {
				switch c.Rule {
				case "tool-renamed", "tool-consolidated":
					got = append(got, c.Rule+" "+c.Tool+" -> "+c.Facade.Tool)
				case "tool-added", "tool-removed":
					got = append(got, c.Rule+" "+c.Tool)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("mismatch (-want +got):\n%s", d)
			}
		})
	}
}
