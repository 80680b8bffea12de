package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue12FallbackBundleExecPaths (reproduction: a refused config at
// restart made serve fall back to the state's copy of the last accepted
// bundle, whose folder holds the config and its $file includes only, so
// an exec handler named by a relative path (./bin/tool.sh) was looked for
// in the state folder: the fallback failed to build, and a script that
// reads files from its working folder would have run in the state folder).
// A fallback bundle now runs its exec handlers as the config did: relative
// programs and working folders resolved against the served config's
// folder.
func TestIssue12FallbackBundleExecPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, "data/marker.txt", "from the config folder\n")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "tool.sh"), []byte("#!/bin/sh\ncat marker.txt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := "  - name: run\n    inputSchema: {type: object}\n    handler: {exec: {command: [./bin/tool.sh], dir: data}}\n"
	cfg := writeFile(t, dir, "cfg.yaml", i12v1+run)
	stDir := filepath.Join(t.TempDir(), "st")
	st := i12State(t, stDir)
	s1, err := i12New(t, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	s1.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "cfg.yaml", i12v2+run) // refused at the restart

	s2, err := i12New(t, cfg, i12State(t, stDir))
	if err != nil {
		t.Fatalf("restart on the fallback bundle: %v", err)
	}
	c := dialRaw(t, s2)
	c.initialize(true)
	r := c.call("tools/call", map[string]any{"name": "run", "arguments": map[string]any{}})
	if r.Error != nil || !strings.Contains(string(r.Result), "from the config folder") {
		t.Errorf("run on the fallback bundle: %s %+v, want the marker read in the config's data folder", r.Result, r.Error)
	}
}
