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
