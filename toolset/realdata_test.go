package toolset_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/toolset"
)

// changedTools compares two sets tool by tool and returns the names whose
// canonical forms differ, and the names present on one side only.
func changedTools(old, new *toolset.Set, normalize bool) (changed, onlyOld, onlyNew []string) {
	for _, o := range old.Tools {
		n := new.Lookup(o.Name)
		if n == nil {
			onlyOld = append(onlyOld, o.Name)
			continue
		}
		if !bytes.Equal(o.Canonical(normalize), n.Canonical(normalize)) {
			changed = append(changed, o.Name)
		}
	}
	for _, n := range new.Tools {
		if old.Lookup(n.Name) == nil {
			onlyNew = append(onlyNew, n.Name)
		}
	}
	return changed, onlyOld, onlyNew
}

// TestGitHubV023ToV024Normalized checks the realdata README's verdict for
// github-mcp-server v0.23.0 → v0.24.0: upstream reordered the keys of almost
// every tool and dropped the default hint readOnlyHint: false; after
// normalization (Tool.Canonical(true)) only real changes remain.
func TestGitHubV023ToV024Normalized(t *testing.T) {
	t.Parallel()
	old := decodeFile(t, "../testdata/realdata/github-mcp-server/v0.23.0.json")
	new := decodeFile(t, "../testdata/realdata/github-mcp-server/v0.24.0.json")

	changed, onlyOld, onlyNew := changedTools(old, new, true)
	wantChanged := []string{
		// annotations.readOnlyHint false dropped (normalized away), and
		// inputSchema.required gains "state": the breaking change.
		"dismiss_notification",
		// inputSchema {"type":"object","properties":{}} became null, an
		// invalid schema (upstream bug).
		"get_me",
		// description of the "method" property: trailing spaces removed
		// from its lines ("issue. \nOptions are: \n" → "issue.\nOptions are:\n").
		"issue_read",
		// the same trailing-space cleanup in the "method" description
		// (readOnlyHint: false also dropped, normalized away).
		"issue_write",
		// files.items lost additionalProperties: false (a widening;
		// readOnlyHint: false also dropped, normalized away).
		"push_files",
	}
	if d := cmp.Diff(wantChanged, changed); d != "" {
		t.Errorf("tools still different after normalization: mismatch (-want +got):\n%s", d)
	}
	if len(onlyOld) != 0 {
		t.Errorf("tools only in v0.23.0: %v, want none", onlyOld)
	}
	// Tools whose snapshot file first appears in v0.24.0 (upstream's snapshot
	// coverage grew: Actions, gists, discussions, releases, security
	// advisories and secret scanning, search_orgs).
	wantOnlyNew := []string{
		"cancel_workflow_run", "create_gist", "delete_workflow_run_logs",
		"download_workflow_run_artifact", "get_discussion", "get_discussion_comments",
		"get_gist", "get_global_security_advisory", "get_job_logs", "get_latest_release",
		"get_secret_scanning_alert", "get_workflow_run", "get_workflow_run_logs",
		"get_workflow_run_usage", "list_discussion_categories", "list_discussions",
		"list_gists", "list_global_security_advisories", "list_org_repository_security_advisories",
		"list_releases", "list_repository_security_advisories", "list_secret_scanning_alerts",
		"list_workflow_jobs", "list_workflow_run_artifacts", "list_workflow_runs",
		"list_workflows", "rerun_failed_jobs", "rerun_workflow_run", "run_workflow",
		"search_orgs", "update_gist",
	}
	if d := cmp.Diff(wantOnlyNew, onlyNew); d != "" {
		t.Errorf("tools only in v0.24.0: mismatch (-want +got):\n%s", d)
	}

	// Without normalization the dropped default hints still show: every tool
	// that had readOnlyHint: false differs, key order alone never does.
	raw, _, _ := changedTools(old, new, false)
	wantRaw := []string{
		"add_comment_to_pending_review", "add_issue_comment", "add_project_item",
		"assign_copilot_to_issue", "create_branch", "create_or_update_file",
		"create_pull_request", "create_repository", "delete_file", "delete_project_item",
		"dismiss_notification", "fork_repository", "get_me", "issue_read", "issue_write",
		"label_write", "manage_notification_subscription",
		"manage_repository_notification_subscription", "mark_all_notifications_read",
		"merge_pull_request", "pull_request_review_write", "push_files",
		"request_copilot_review", "star_repository", "sub_issue_write", "unstar_repository",
		"update_project_item", "update_pull_request", "update_pull_request_branch",
	}
	if d := cmp.Diff(wantRaw, raw); d != "" {
		t.Errorf("tools different before normalization: mismatch (-want +got):\n%s", d)
	}
	// The raw bytes differ for almost every common tool (key order), which
	// is what the canonical form must see through.
	rawBytes := 0
	for _, o := range old.Tools {
		if n := new.Lookup(o.Name); n != nil && !bytes.Equal(o.Raw, n.Raw) {
			rawBytes++
		}
	}
	if rawBytes <= len(wantRaw) {
		t.Errorf("only %d tools differ in raw bytes; the test no longer exercises key reordering", rawBytes)
	}
}
