package diff

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// Real tool lists of two published servers (testdata/realdata/README.md).

func loadRealVersion(t *testing.T, server, version string) *toolset.Set {
	t.Helper()
	return loadSet(t, filepath.Join("..", "testdata", "realdata", server, version+".json"))
}

// toolLevel keeps the findings of the tool-level rules (this file's
// subject); the schema rules' findings are tested with the schema
// comparison.
func toolLevel(r *Report) []Change {
	own := map[string]bool{}
	for _, list := range [][]Rule{toolRules, annotationRules, lifecycleRules} {
		for _, rule := range list {
			own[string(rule.ID)] = true
		}
	}
	var out []Change
	for _, c := range r.Changes {
		if own[c.Rule] {
			out = append(out, c)
		}
	}
	return out
}

// brief renders findings as "rule tool path" lines for comparison.
func brief(cs []Change) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s %s %s %s", c.Rule, c.Level, c.Tool, c.Path))
	}
	return out
}

func TestRealFilesystem(t *testing.T) {
	t.Parallel()
	const fs = "server-filesystem"
	tests := []struct {
		old, new string
		want     []string // tool-level findings, in report order
	}{
		{"2025.7.1", "2025.7.29", []string{
			"description-changed safe list_allowed_directories /description",
			"tool-added safe read_media_file ",
			"tool-added safe read_text_file ",
			"description-deprecated safe read_file /description",
		}},
		{"2025.7.29", "2025.8.18", []string{
			"description-changed safe list_allowed_directories /description",
		}},
		{"2025.11.25", "2026.7.4", []string{
			"annotation-more-cautious safe move_file /annotations/destructiveHint",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.old+"->"+tt.new, func(t *testing.T) {
			r := Compare(loadRealVersion(t, fs, tt.old), loadRealVersion(t, fs, tt.new), Options{Now: fixtureNow})
			got := brief(toolLevel(r))
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("tool-level findings mismatch (-want +got):\n%s", d)
			}
			for _, c := range toolLevel(r) {
				if c.Rule == "description-deprecated" && (c.Notice == nil || !strings.Contains(*c.Notice, "DEPRECATED: Use read_text_file instead.")) {
					t.Errorf("deprecation notice = %v, want it to quote the marker", c.Notice)
				}
			}
		})
	}
}

// 2025.7.29 -> 2025.8.18 is exactly one description change, schema rules
// included.
func TestRealFilesystemOneDescriptionChange(t *testing.T) {
	t.Parallel()
	r := Compare(loadRealVersion(t, "server-filesystem", "2025.7.29"), loadRealVersion(t, "server-filesystem", "2025.8.18"), Options{Now: fixtureNow})
	if d := cmp.Diff([]string{"description-changed safe list_allowed_directories /description"}, brief(r.Changes)); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if r.Level != Safe || r.Changes[0].Notice == nil {
		t.Errorf("level %v, notice %v; want safe with a notice", r.Level, r.Changes[0].Notice)
	}
}

// 2025.8.18 -> 2025.11.25 adds titles, annotations and execution
// {taskSupport: forbidden} (the default, so no finding); every hint that
// claims less danger carries a security notice.
func TestRealFilesystemAnnotationsAdded(t *testing.T) {
	t.Parallel()
	r := Compare(loadRealVersion(t, "server-filesystem", "2025.8.18"), loadRealVersion(t, "server-filesystem", "2025.11.25"), Options{Now: fixtureNow})
	var less, titles, others []string
	for _, c := range toolLevel(r) {
		switch c.Rule {
		case "annotation-less-cautious":
			less = append(less, c.Tool+" "+strings.TrimPrefix(c.Path, "/annotations/"))
			if c.Level != Safe || c.Notice == nil || !strings.HasPrefix(*c.Notice, "security:") {
				t.Errorf("%s %s: level %v notice %v; want safe with a security notice", c.Tool, c.Path, c.Level, c.Notice)
			}
		case "title-changed":
			titles = append(titles, c.Tool)
		default:
			others = append(others, c.Rule+" "+c.Tool)
		}
	}
	wantLess := []string{
		"create_directory destructiveHint", "create_directory idempotentHint",
		"directory_tree readOnlyHint", "get_file_info readOnlyHint",
		"list_allowed_directories readOnlyHint", "list_directory readOnlyHint",
		"list_directory_with_sizes readOnlyHint", "move_file destructiveHint",
		"read_file readOnlyHint", "read_media_file readOnlyHint",
		"read_multiple_files readOnlyHint", "read_text_file readOnlyHint",
		"search_files readOnlyHint", "write_file idempotentHint",
	}
	if d := cmp.Diff(wantLess, less); d != "" {
		t.Errorf("less-cautious hints mismatch (-want +got):\n%s", d)
	}
	if len(titles) != 14 {
		t.Errorf("%d titles added, want 14: %v", len(titles), titles)
	}
	if d := cmp.Diff([]string{"description-changed search_files"}, others); d != "" {
		t.Errorf("other tool-level findings mismatch (-want +got):\n%s", d)
	}
}

// 2026.7.4 -> 2026.7.10 adds openWorldHint: false to all 14 tools: safe,
// each with a security notice.
func TestRealFilesystemClosedWorld(t *testing.T) {
	t.Parallel()
	new := loadRealVersion(t, "server-filesystem", "2026.7.10")
	r := Compare(loadRealVersion(t, "server-filesystem", "2026.7.4"), new, Options{Now: fixtureNow})
	n := 0
	for _, c := range toolLevel(r) {
		switch c.Rule {
		case "annotation-less-cautious":
			n++
			if c.Path != "/annotations/openWorldHint" || c.Level != Safe || c.Notice == nil || !strings.Contains(*c.Notice, "closed world") {
				t.Errorf("finding %+v: want openWorldHint, safe, closed-world security notice", c)
			}
		case "description-changed":
			if c.Tool != "read_media_file" {
				t.Errorf("unexpected description change on %s", c.Tool)
			}
		default:
			t.Errorf("unexpected tool-level finding %s on %s", c.Rule, c.Tool)
		}
	}
	if n != len(new.Tools) || n != 14 {
		t.Errorf("%d openWorldHint findings, want one per tool (14)", n)
	}
}

// 0.5.1 installed with today's dependencies: every input schema that lost
// its type is invalid MCP, so breaking. (The README counts 9 tools, but
// list_allowed_directories kept {"type": "object", "properties": {}} in
// both files; the other 8 lost their schema.)
func TestRealFilesystemUnpinnedDeps(t *testing.T) {
	t.Parallel()
	old, new := loadRealVersion(t, "server-filesystem", "0.5.1"), loadRealVersion(t, "server-filesystem", "0.5.1-unpinned-deps")
	r := Compare(old, new, Options{Now: fixtureNow})
	if r.Level != Breaking {
		t.Fatalf("level = %v, want breaking", r.Level)
	}
	invalid := map[string]bool{}
	for _, c := range r.Changes {
		if c.Rule == "tool-invalid" && c.Level == Breaking && c.Path == "/inputSchema" {
			invalid[c.Tool] = true
		}
	}
	for _, ot := range old.Tools {
		changed := string(ot.Canonical(true)) != string(new.Lookup(ot.Name).Canonical(true))
		if changed != invalid[ot.Name] {
			t.Errorf("%s: schema changed %v, tool-invalid %v", ot.Name, changed, invalid[ot.Name])
		}
	}
	if len(invalid) != 8 {
		t.Errorf("%d tools invalid, want 8", len(invalid))
	}
}

// github-mcp-server v0.30.3 -> v0.31.0 removes 22 tools; 21 of them fit a
// consolidated tool with a method enum naming them, 6 of those only with
// pointer renames into a sub-object and/or an id mapped by role with a
// coercion. Each suggestion must round-trip: its witness (an old call)
// through the suggested facade is accepted by the new tool; and the routes
// agree with the facade file written by hand after upstream's alias table.
func TestRealGithubConsolidation(t *testing.T) {
	t.Parallel()
	old, new := loadRealVersion(t, "github-mcp-server", "v0.30.3"), loadRealVersion(t, "github-mcp-server", "v0.31.0")
	r := Compare(old, new, Options{Now: fixtureNow})
	var consolidated, removed []string
	for _, c := range r.Changes {
		switch c.Rule {
		case "tool-consolidated":
			consolidated = append(consolidated, c.Tool+" -> "+c.Facade.Tool)
			checkRoundTrip(t, old, new, c)
		case "tool-removed":
			removed = append(removed, c.Tool)
			if c.Facade != nil {
				t.Errorf("%s: tool-removed with a suggestion", c.Tool)
			}
		case "tool-renamed", "tool-removed-after-sunset":
			t.Errorf("unexpected %s on %s", c.Rule, c.Tool)
		}
	}
	wantConsolidated := []string{
		"add_project_item -> projects_write", "cancel_workflow_run -> actions_run_trigger",
		"delete_project_item -> projects_write", "delete_workflow_run_logs -> actions_run_trigger",
		"download_workflow_run_artifact -> actions_get",
		"get_project -> projects_get", "get_project_field -> projects_get",
		"get_project_item -> projects_get", "get_workflow_run -> actions_get",
		"get_workflow_run_usage -> actions_get",
		"list_project_fields -> projects_list", "list_project_items -> projects_list",
		"list_projects -> projects_list", "list_workflow_jobs -> actions_list",
		"list_workflow_run_artifacts -> actions_list", "list_workflow_runs -> actions_list",
		"list_workflows -> actions_list", "rerun_failed_jobs -> actions_run_trigger",
		"rerun_workflow_run -> actions_run_trigger", "run_workflow -> actions_run_trigger",
		"update_project_item -> projects_write",
	}
	if d := cmp.Diff(wantConsolidated, consolidated); d != "" {
		t.Errorf("consolidations mismatch (-want +got):\n%s", d)
	}
	// The last one has no method value named after it: actions_get's
	// get_workflow_run_logs_url extends the name and is not assumed.
	if d := cmp.Diff([]string{"get_workflow_run_logs"}, removed); d != "" {
		t.Errorf("removals mismatch (-want +got):\n%s", d)
	}
	if r.Level != Breaking {
		t.Errorf("level = %v, want breaking", r.Level)
	}
	finding := func(tool string) Change {
		t.Helper()
		i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Tool == tool })
		if i < 0 {
			t.Fatalf("no finding for %s", tool)
		}
		return r.Changes[i]
	}
	if c := finding("get_workflow_run_logs"); !strings.Contains(c.Reason, `actions_get has method "get_workflow_run_logs_url"`) {
		t.Errorf("get_workflow_run_logs reason = %q", c.Reason)
	}

	// list_workflows: inject method, rename perPage -> per_page.
	want := &Suggestion{Tool: "actions_list", Block: facade.Block{Aliases: []facade.Alias{{
		Name: "list_workflows", Inject: map[string]any{"method": "list_workflows"}, Rename: map[string]string{"perPage": "per_page"},
	}}}}
	if d := cmp.Diff(want, finding("list_workflows").Facade); d != "" {
		t.Errorf("list_workflows suggestion mismatch (-want +got):\n%s", d)
	}
	// The routes that need pointer renames, an id mapped by role and a
	// coercion are those of the hand-written facade file.
	hand, err := facade.LoadFile(filepath.Join("..", "testdata", "fixtures", "github-v0.31.0-facades.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tool, target string }{
		{"list_workflow_runs", "actions_list"},
		{"get_workflow_run", "actions_get"},
	} {
		c := finding(tt.tool)
		i := slices.IndexFunc(hand[tt.target].Aliases, func(a facade.Alias) bool { return a.Name == tt.tool })
		want := &Suggestion{Tool: tt.target, Block: facade.Block{Coerce: hand[tt.target].Coerce, Aliases: hand[tt.target].Aliases[i : i+1]}}
		if d := cmp.Diff(want, c.Facade); d != "" {
			t.Errorf("%s suggestion differs from the hand-written facade (-want +got):\n%s", tt.tool, d)
		}
	}
	// An id mapped by role says so.
	if c := finding("get_workflow_run"); c.Notice == nil || !strings.Contains(*c.Notice, "run_id -> resource_id: matched as the only free id argument of actions_get") {
		t.Errorf("get_workflow_run notice = %v, want the by-role notice", c.Notice)
	}
	// list_workflow_jobs moves filter into workflow_jobs_filter.
	if got := finding("list_workflow_jobs").Facade.Block.Aliases[0].Rename["filter"]; got != "/workflow_jobs_filter/filter" {
		t.Errorf("list_workflow_jobs: filter -> %q, want /workflow_jobs_filter/filter", got)
	}

	// All suggestions together, declared as the facade file, cover every
	// consolidation; the gate level stays breaking (1 real removal) until
	// it is ignored.
	file := r.SuggestedFacades()
	aliases := map[string]int{}
	for tool, b := range file {
		aliases[tool] = len(b.Aliases)
	}
	wantAliases := map[string]int{"actions_get": 3, "actions_list": 4, "actions_run_trigger": 5, "projects_get": 3, "projects_list": 3, "projects_write": 3}
	if d := cmp.Diff(wantAliases, aliases); d != "" {
		t.Errorf("suggested facades: aliases per tool mismatch (-want +got):\n%s", d)
	}
	for _, tool := range []string{"actions_get", "actions_list"} {
		if d := cmp.Diff(map[string]string{"resource_id": "string"}, file[tool].Coerce); d != "" {
			t.Errorf("suggested facade of %s: coerce mismatch (-want +got):\n%s", tool, d)
		}
	}
	ignores := []Ignore{{Rule: "tool-removed", Tool: "get_workflow_run_logs", Reason: "retired upstream"}}
	cov := Compare(old, new, Options{Now: fixtureNow, Facades: file, Ignores: ignores})
	n := 0
	for _, c := range cov.Changes {
		if c.Rule == "tool-consolidated" {
			if !c.Covered {
				t.Errorf("%s not covered by its own suggestion: %s", c.Tool, c.Reason)
			}
			n++
		}
	}
	if n != 21 || cov.GateLevel() > Safe {
		t.Errorf("%d covered consolidations, gate level %v; want 21, at most safe", n, cov.GateLevel())
	}
}

// checkRoundTrip applies a finding's suggestion to its witness and to the
// old tool's example instance (when one can be built) and validates the
// result against the new tool.
func checkRoundTrip(t *testing.T, old, new *toolset.Set, c Change) {
	t.Helper()
	if c.Facade == nil {
		t.Errorf("%s: no suggestion", c.Tool)
		return
	}
	target := new.Lookup(c.Facade.Tool)
	nc, err := schema.Compile(target.InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	oc, err := schema.Compile(old.Lookup(c.Tool).InputSchema())
	if err != nil {
		t.Fatal(err)
	}
	var calls []any
	w, err := schema.Decode(c.Witness)
	if err != nil {
		t.Fatalf("%s: witness: %v", c.Tool, err)
	}
	calls = append(calls, w)
	if ex, ok := exampleInstance(old.Lookup(c.Tool).InputSchema()); ok {
		calls = append(calls, ex)
	}
	for _, call := range calls {
		args, ok := call.(map[string]any)
		if !ok {
			t.Errorf("%s: example %v is not an object", c.Tool, call)
			continue
		}
		if err := oc.Validate(args); err != nil {
			t.Errorf("%s: example %s is not a valid old call: %v", c.Tool, instanceText(args), err)
		}
		got, steps, err := facade.Apply(c.Facade.File(), c.Facade.Tool, func(a map[string]any) error { return nc.Validate(a) }, facade.Call{Tool: c.Tool, Arguments: args})
		if err != nil {
			t.Errorf("%s: suggestion does not carry %s: %v", c.Tool, instanceText(args), err)
			continue
		}
		if got.Tool != c.Facade.Tool || len(steps) == 0 || steps[0].Kind != facade.StepAlias {
			t.Errorf("%s: translated to %+v with steps %v", c.Tool, got, steps)
		}
	}
}

// Compare is deterministic: two runs give byte-identical JSON.
func TestDeterministicJSON(t *testing.T) {
	t.Parallel()
	pairs := [][3]string{
		{"github-mcp-server", "v0.30.3", "v0.31.0"},
		{"github-mcp-server", "v0.23.0", "v0.24.0"},
		{"server-filesystem", "2025.8.18", "2025.11.25"},
	}
	for _, p := range pairs {
		old, new := loadRealVersion(t, p[0], p[1]), loadRealVersion(t, p[0], p[2])
		a, err := json.Marshal(Compare(old, new, Options{Now: fixtureNow}))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(Compare(loadRealVersion(t, p[0], p[1]), loadRealVersion(t, p[0], p[2]), Options{Now: fixtureNow}))
		if string(a) != string(b) {
			t.Errorf("%s %s -> %s: two runs differ", p[0], p[1], p[2])
		}
	}
}

// github v0.24.0 get_me has "inputSchema": null: input-schema-removed, not
// a crash, and not also reported as tool-invalid.
func TestRealGithubNullSchema(t *testing.T) {
	t.Parallel()
	r := Compare(loadRealVersion(t, "github-mcp-server", "v0.23.0"), loadRealVersion(t, "github-mcp-server", "v0.24.0"), Options{Now: fixtureNow})
	var got []string
	for _, c := range r.Changes {
		if c.Tool == "get_me" {
			got = append(got, c.Rule+" "+c.Level.String())
		}
	}
	if d := cmp.Diff([]string{"input-schema-removed breaking"}, got); d != "" {
		t.Errorf("get_me findings mismatch (-want +got):\n%s", d)
	}
}

// github-mcp-server v0.17.1 -> v0.20.0 folds issue and pull-request tools
// into issue_read, issue_write, pull_request_read and
// pull_request_review_write, whose method values drop the target's words
// (get_issue_comments -> issue_read method get_comments).
func TestRealGithubWordStrippedMethods(t *testing.T) {
	t.Parallel()
	old, new := loadRealVersion(t, "github-mcp-server", "v0.17.1"), loadRealVersion(t, "github-mcp-server", "v0.20.0")
	r := Compare(old, new, Options{Now: fixtureNow})
	got := map[string]string{}
	for _, c := range r.Changes {
		if c.Rule == "tool-consolidated" {
			checkRoundTrip(t, old, new, c)
			a := c.Facade.Block.Aliases[0]
			got[c.Tool] = fmt.Sprintf("%s %v", c.Facade.Tool, a.Inject["method"])
		}
	}
	want := map[string]string{
		"delete_pending_pull_request_review": "pull_request_review_write delete_pending",
		"get_issue":                          "issue_read get",
		"get_issue_comments":                 "issue_read get_comments",
		"get_pull_request":                   "pull_request_read get",
		"get_pull_request_diff":              "pull_request_read get_diff",
		"get_pull_request_files":             "pull_request_read get_files",
		"get_pull_request_review_comments":   "pull_request_read get_review_comments",
		"get_pull_request_reviews":           "pull_request_read get_reviews",
		"get_pull_request_status":            "pull_request_read get_status",
		"submit_pending_pull_request_review": "pull_request_review_write submit_pending",
		"update_issue":                       "issue_write update",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("consolidations mismatch (-want +got):\n%s", d)
	}
}
