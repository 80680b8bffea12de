package serve

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/serveconfig"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	removed := diff.Change{Rule: "tool-removed", Level: diff.Breaking, Tool: "export"}
	propRemoved := diff.Change{Rule: "input-property-removed", Level: diff.Breaking, Tool: "search", Path: "/properties/q"}
	renamed := diff.Change{Rule: "input-property-renamed", Level: diff.Facade, Tool: "search"}
	covered := diff.Change{Rule: "input-property-renamed", Level: diff.Facade, Tool: "search", Covered: true}
	added := diff.Change{Rule: "tool-added", Level: diff.Safe, Tool: "fetch"}
	entry := func(rule, tool, until string) serveconfig.AllowEntry {
		e := serveconfig.AllowEntry{Rule: rule, Tool: tool, Reason: "r", Pos: serveconfig.Pos{File: "c.yaml", Line: 9, Col: 7}}
		if until != "" {
			u, err := diff.ParseExpiry(until, true)
			if err != nil {
				t.Fatal(err)
			}
			e.Expires = u
		}
		return e
	}
	type result struct {
		Refused  bool
		Blocking []string
		Allowed  []string
		Expired  int
	}
	for _, tc := range []struct {
		name          string
		changes       []diff.Change
		allow         []serveconfig.AllowEntry
		allowBreaking bool
		want          result
	}{
		{"safe only", []diff.Change{added}, nil, false, result{}},
		{"covered facade", []diff.Change{covered}, nil, false, result{}},
		{"uncovered facade", []diff.Change{renamed}, nil, false, result{Refused: true, Blocking: []string{"input-property-renamed"}}},
		{"breaking", []diff.Change{removed, added}, nil, false, result{Refused: true, Blocking: []string{"tool-removed"}}},
		{"allowed by rule and tool", []diff.Change{removed}, []serveconfig.AllowEntry{entry("tool-removed", "export", "")}, false, result{Allowed: []string{"tool-removed"}}},
		{"no rule covers every rule of the tool", []diff.Change{propRemoved, renamed}, []serveconfig.AllowEntry{entry("", "search", "")}, false, result{Allowed: []string{"input-property-removed", "input-property-renamed"}}},
		{"no tool covers the rule everywhere", []diff.Change{removed}, []serveconfig.AllowEntry{entry("tool-removed", "", "")}, false, result{Allowed: []string{"tool-removed"}}},
		{"wrong tool", []diff.Change{removed}, []serveconfig.AllowEntry{entry("tool-removed", "search", "")}, false, result{Refused: true, Blocking: []string{"tool-removed"}}},
		{"wrong rule", []diff.Change{removed}, []serveconfig.AllowEntry{entry("input-property-removed", "export", "")}, false, result{Refused: true, Blocking: []string{"tool-removed"}}},
		{"until today still covers", []diff.Change{removed}, []serveconfig.AllowEntry{entry("tool-removed", "export", "2026-06-01")}, false, result{Allowed: []string{"tool-removed"}}},
		{"past until", []diff.Change{removed}, []serveconfig.AllowEntry{entry("tool-removed", "export", "2026-05-31")}, false, result{Refused: true, Blocking: []string{"tool-removed"}, Expired: 1}},
		{"one of two covered", []diff.Change{removed, propRemoved}, []serveconfig.AllowEntry{entry("", "export", "")}, false, result{Refused: true, Blocking: []string{"input-property-removed"}, Allowed: []string{"tool-removed"}}},
		{"allow-breaking", []diff.Change{removed}, nil, true, result{Blocking: []string{"tool-removed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(&diff.Report{Changes: tc.changes}, tc.allow, tc.allowBreaking, now)
			got := result{Refused: d.Refused}
			for _, f := range d.Blocking {
				got.Blocking = append(got.Blocking, f.Rule)
			}
			for _, f := range d.Findings {
				if f.AllowedBy != "" {
					got.Allowed = append(got.Allowed, f.Rule)
					if f.AllowedBy != "c.yaml:9:7" {
						t.Errorf("AllowedBy = %q", f.AllowedBy)
					}
				}
				if f.Expired != "" {
					got.Expired++
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
