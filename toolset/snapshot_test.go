package toolset

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteSnapshotGolden(t *testing.T) {
	t.Parallel()
	in := filepath.Join("testdata", "snapshot", "input.json")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	set, err := Decode(in, data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, set); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "snapshot", "input.golden.json")
	if updating() {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), buf.String()); d != "" {
		t.Errorf("WriteSnapshot mismatch (-want +got):\n%s", d)
	}
}

// TestWriteSnapshotRoundTrip writes every real tool list as a snapshot and
// checks that it decodes to the same canonical form and that each tool's
// bytes changed only in whitespace (same compact form, so member order,
// escapes and number spellings are kept).
func TestWriteSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "realdata", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "snapshot", "input.json"))
	if len(files) < 10 {
		t.Fatalf("found only %d real tool lists: %v", len(files), files)
	}
	for _, file := range files {
		t.Run(filepath.Base(filepath.Dir(file))+"/"+filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			set, err := Decode(file, data)
			if err != nil {
				// Real data may hold input a loader must refuse.
				t.Skipf("not a readable tool set: %v", err)
			}
			var buf bytes.Buffer
			if err := WriteSnapshot(&buf, set); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
				t.Errorf("snapshot does not end with a newline")
			}
			back, err := Decode("snapshot", buf.Bytes())
			if err != nil {
				t.Fatalf("Decode(WriteSnapshot): %v", err)
			}
			if d := cmp.Diff(string(set.Canonical(false)), string(back.Canonical(false))); d != "" {
				t.Errorf("canonical form mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(set.Names(), back.Names()); d != "" {
				t.Fatalf("names mismatch (-want +got):\n%s", d)
			}
			for i, tool := range set.Tools {
				if d := cmp.Diff(compact(t, tool.Raw), compact(t, back.Tools[i].Raw)); d != "" {
					t.Errorf("tool %s bytes changed beyond whitespace (-want +got):\n%s", tool.Name, d)
				}
			}
		})
	}
}

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteSnapshotEmptyAndInvalid(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, &Set{Source: "empty"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"tools\": []\n}\n"; buf.String() != want {
		t.Errorf("empty snapshot = %q, want %q", buf.String(), want)
	}
	if back, err := Decode("snapshot", buf.Bytes()); err != nil || len(back.Tools) != 0 {
		t.Errorf("Decode(empty snapshot) = %v, %v; want no tools", back, err)
	}

	buf.Reset()
	bad := &Set{Source: "made", Tools: []*Tool{{Name: "broken", Raw: []byte(`{"name":"broken",}`)}}}
	err := WriteSnapshot(&buf, bad)
	if err == nil || !strings.Contains(err.Error(), `tool "broken"`) {
		t.Errorf("WriteSnapshot(invalid Raw) error = %v, want one naming the tool", err)
	}
	if buf.Len() != 0 {
		t.Errorf("WriteSnapshot wrote %q despite the error", buf.String())
	}
}

// updating reports whether -update was given; the flag is declared once, in
// golden_test.go (package toolset_test, linked into the same test binary).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}
