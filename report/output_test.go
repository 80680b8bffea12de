package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// fleets are the three verdicts of `mcpctl status --admin A,B,C`.
func fleets() map[string]FleetStatus {
	at := func(min int) time.Time { return time.Date(2026, 7, 1, 12, min, 0, 0, time.UTC) }
	fpA, fpB := "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90", "b7e2d1c0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2"
	since := at(7)
	return map[string]FleetStatus{
		"converged": {Converged: true, Fingerprint: fpA, Replicas: []ReplicaState{
			{Admin: "127.0.0.1:18941", Version: 3, Fingerprint: fpA, PublishedAt: at(0), Ready: true},
			{Admin: "127.0.0.1:18942", Version: 2, Fingerprint: fpA, PublishedAt: at(1), Ready: true},
		}},
		"diverged": {DivergedSince: &since, Replicas: []ReplicaState{
			{Admin: "127.0.0.1:18941", Version: 3, Fingerprint: fpA, PublishedAt: at(0), Ready: true},
			{Admin: "127.0.0.1:18942", Version: 4, Fingerprint: fpB, PublishedAt: at(7), Ready: false},
		}},
		"unreachable": {Replicas: []ReplicaState{
			{Admin: "127.0.0.1:18941", Version: 3, Fingerprint: fpA, PublishedAt: at(0), Ready: true},
			{Admin: "18943", Error: "cannot reach the admin listener at 127.0.0.1:18943: connection refused"},
		}},
	}
}

func fingerprintSet(t *testing.T) *toolset.Set {
	t.Helper()
	set, err := toolset.Decode("tools.json", []byte(`{"tools":[
		{"name":"search_issues","inputSchema":{"type":"object","required":["q","repo"],"properties":{"q":{"type":"string"},"repo":{"type":"string"}}}},
		{"name":"a","description":"one letter","inputSchema":{"type":"object"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestOutputGolden pins the text and JSON of lint, canon --fingerprint and
// status --admin A,B,C, rendered in this package since issue 11.
func TestOutputGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	run := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
		b.Reset()
	}
	run("lint.json", LintJSON(&b, NewLintReport("tools.json", "default", 6, lintFindings())))
	run("lint-empty.json", LintJSON(&b, NewLintReport("tools.json", "strict", 0, nil)))
	fp := NewFingerprints(fingerprintSet(t), false)
	run("fingerprints.txt", FingerprintsText(&b, fp))
	run("fingerprints.json", FingerprintsJSON(&b, fp))
	now := time.Date(2026, 7, 1, 13, 0, 0, 0, time.UTC)
	for name, f := range fleets() {
		run("fleet-"+name+".txt", FleetText(&b, f, now))
		run("fleet-"+name+".json", FleetJSON(&b, f))
	}
}

// TestOutputContracts: each JSON golden validates against the schema
// docs/output.md documents it with, so the doc and the output cannot drift.
func TestOutputContracts(t *testing.T) {
	t.Parallel()
	for schemaFile, goldens := range map[string][]string{
		"lint-output.schema.json":         {"lint.json", "lint-empty.json"},
		"fingerprints-output.schema.json": {"fingerprints.json"},
		"fleet-status-output.schema.json": {"fleet-converged.json", "fleet-diverged.json", "fleet-unreachable.json"},
		"status-output.schema.json":       {"status-started.json", "status-busy.json"},
	} {
		sc := compileFile(t, filepath.Join("..", "docs", "schema", schemaFile))
		for _, g := range goldens {
			v := parseFile(t, filepath.Join("testdata", "golden", g))
			if err := sc.Validate(schema.Instance(&v)); err != nil {
				t.Errorf("%s does not follow %s: %v", g, schemaFile, err)
			}
		}
	}
	// The schemas are closed: a renamed member is a failure, not a pass.
	sc := compileFile(t, filepath.Join("..", "docs", "schema", "lint-output.schema.json"))
	var doc map[string]any
	if err := json.Unmarshal([]byte(`{"source":"s","profile":"default","tools":0,"counts":{"error":0,"ignored":0,"warning":0},"findings":[],"extra":1}`), &doc); err != nil {
		t.Fatal(err)
	}
	if sc.Validate(doc) == nil {
		t.Error("lint-output.schema.json accepts an unknown member")
	}
}

func parseFile(t *testing.T, path string) canon.Value {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func compileFile(t *testing.T, path string) *schema.Compiled {
	t.Helper()
	v := parseFile(t, path)
	sc, err := schema.Compile(&v)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}
