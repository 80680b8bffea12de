package toolset_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// update rewrites golden files under testdata/golden instead of comparing:
// go test ./toolset/ -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (canonical forms, snapshots)")

// realdataFiles lists testdata/realdata/<server>/<file>.json as paths
// relative to testdata/realdata.
func realdataFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/realdata/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no files under testdata/realdata")
	}
	for i, f := range files {
		files[i] = strings.TrimPrefix(filepath.ToSlash(f), "../testdata/realdata/")
	}
	return files
}

func decodeFile(t *testing.T, path string) *toolset.Set {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := toolset.Decode(path, data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return set
}

// TestGoldenCanon pins the canonical form of every real tool list under
// testdata/golden/canon/<server>/<file>, and checks that the canonical form
// is a fixed point: decoded again and re-canonicalized it is byte-identical.
func TestGoldenCanon(t *testing.T) {
	t.Parallel()
	for _, rel := range realdataFiles(t) {
		t.Run(rel, func(t *testing.T) {
			set := decodeFile(t, filepath.Join("../testdata/realdata", rel))
			got := set.Canonical(false)

			golden := filepath.Join("../testdata/golden/canon", rel)
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("canonical form differs from %s at byte %d (run with -update if the change is intended)", golden, firstDiff(want, got))
			}

			// Set.Canonical is canon.AppendToolList of the same tools.
			values := make([]*canon.Value, len(set.Tools))
			for i, tl := range set.Tools {
				values[i] = &tl.Value
			}
			if list := canon.AppendToolList(nil, values); !bytes.Equal(list, got) {
				t.Errorf("Set.Canonical and canon.AppendToolList differ at byte %d", firstDiff(list, got))
			}

			again, err := toolset.Decode(golden, got)
			if err != nil {
				t.Fatalf("canonical form does not decode: %v", err)
			}
			if c := again.Canonical(false); !bytes.Equal(c, got) {
				t.Errorf("canonical form not idempotent: differs at byte %d", firstDiff(got, c))
			}
			if again.Fingerprint() != set.Fingerprint() {
				t.Errorf("fingerprint changed after a round trip")
			}
			// Normalized canonical forms are fixed points too.
			norm := set.Canonical(true)
			renorm, err := toolset.Decode(golden, norm)
			if err != nil {
				t.Fatalf("normalized canonical form does not decode: %v", err)
			}
			if c := renorm.Canonical(true); !bytes.Equal(c, norm) {
				t.Errorf("normalization not idempotent: differs at byte %d", firstDiff(norm, c))
			}
		})
	}
}

// TestNullInputSchema: github-mcp-server v0.24.0 ships get_me with
// "inputSchema": null (an upstream bug). Reading and canonicalizing it must
// work; refusing it is lint's job (docs/lint.md#lint-validity-and-client-compatibility).
func TestNullInputSchema(t *testing.T) {
	t.Parallel()
	set := decodeFile(t, "../testdata/realdata/github-mcp-server/v0.24.0.json")
	getMe := set.Lookup("get_me")
	if getMe == nil {
		t.Fatal("get_me not found")
	}
	if s := getMe.InputSchema(); s == nil || s.Kind.String() != "null" {
		t.Fatalf("get_me inputSchema = %v, want null", s)
	}
	for _, normalize := range []bool{false, true} {
		c := string(getMe.Canonical(normalize))
		if !strings.Contains(c, `"inputSchema":null`) {
			t.Errorf("Canonical(%v) = %s, want it to keep \"inputSchema\":null", normalize, c)
		}
	}
}

func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
