package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/diff"
)

const issue12FacadeConfig = `server: {name: s, version: 1.0.0}
tools:
  - name: search
    description: Searches issues.
    inputSchema:
      type: object
      properties:
        per_page: {type: integer}
      additionalProperties: false
    handler:
      static: {text: ok}
`

// TestIssue12DiffFacadeRuleRemoved: `mcpctl diff old.yaml new.yaml` where
// NEW drops the facade rename perPage → per_page (tools unchanged) used to
// exit 0; it reports facade-rename-removed with the witness {"perPage":1}
// and exits 1.
func TestIssue12DiffFacadeRuleRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
	withFacade := issue12FacadeConfig + "    facade: {rename: {perPage: per_page}}\n"
	for path, s := range map[string]string{old: withFacade, new: issue12FacadeConfig} {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := mcpctl(t, "diff", "--format", "json", old, new)
	if res.code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", res.code, ExitFindings, res.out, res.errOut)
	}
	var r diff.Report
	if err := json.NewDecoder(strings.NewReader(res.out)).Decode(&r); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if len(r.Changes) == 1 {
		_ = json.Compact(&w, r.Changes[0].Witness)
	}
	if len(r.Changes) != 1 || r.Changes[0].Rule != "facade-rename-removed" || w.String() != `{"perPage":1}` {
		t.Errorf("findings %+v, want facade-rename-removed with witness {\"perPage\":1}", r.Changes)
	}
	if res := mcpctl(t, "diff", old, old); res.code != ExitOK {
		t.Errorf("the same config on both sides: exit %d, want 0\n%s", res.code, res.out)
	}
}

// TestIssue12DiffUsageSunset: `mcpctl diff --usage FIXTURES` judges a
// dropped facade rule by the recorded calls, as serve does by its
// counters: a recorded call that used the rename keeps the removal
// breaking (exit 1, the count in the message); calls that never needed it
// make it safe with a notice (exit 0).
func TestIssue12DiffUsageSunset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
	files := map[string]string{
		old:                               issue12FacadeConfig + "    facade: {rename: {perPage: per_page}}\n",
		new:                               issue12FacadeConfig,
		filepath.Join(dir, "used.jsonl"):  `{"tool":"search","arguments":{"perPage":1}}` + "\n",
		filepath.Join(dir, "quiet.jsonl"): `{"tool":"search","arguments":{"per_page":1}}` + "\n",
	}
	for path, s := range files {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := mcpctl(t, "diff", "--usage", filepath.Join(dir, "used.jsonl"), old, new)
	if res.code != ExitFindings || !strings.Contains(res.out, "1 calls used it") {
		t.Errorf("a recorded call used the rename: exit %d, want %d and the count\n%s%s", res.code, ExitFindings, res.out, res.errOut)
	}
	res = mcpctl(t, "diff", "--usage", filepath.Join(dir, "quiet.jsonl"), old, new)
	if res.code != ExitOK {
		t.Errorf("no recorded call used the rename: exit %d, want %d\n%s%s", res.code, ExitOK, res.out, res.errOut)
	}
}
