package lockfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/toolset"
)

const twoTools = `{"tools":[
{"name":"tally","inputSchema":{"type":"object","properties":{"horizon":{"type":"string"}},"required":["horizon"]}},
{"name":"find","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}]}`

func mustSet(t *testing.T, src string) *toolset.Set {
	t.Helper()
	set, err := toolset.Decode("in.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestLockfileRoundTrip: a set and its facades written as a lockfile read
// back to the same tools (same fingerprint) and the same facade blocks.
func TestLockfileRoundTrip(t *testing.T) {
	t.Parallel()
	set := mustSet(t, twoTools)
	ff := facade.File{
		"tally": {
			Rename:   map[string]string{"span": "horizon"},
			Defaults: map[string]any{"limit": 20},
			Coerce:   map[string]string{"limit": "integer"},
			Values:   map[string]map[string]any{"mode": {"low": "LOW"}},
			Aliases:  []facade.Alias{{Name: "count_alerts"}, {Name: "tally_v1", Inject: map[string]any{"v": "1"}}},
		},
	}
	var buf bytes.Buffer
	if err := Write(&buf, set, ff); err != nil {
		t.Fatal(err)
	}
	lock, err := Decode("tools.lock.json", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.Bytes())
	}
	if got, want := lock.Set.Fingerprint(), set.Fingerprint(); got != want {
		t.Errorf("fingerprint %s, want %s", got, want)
	}
	if d := cmp.Diff(ff, lock.Facades); d != "" {
		t.Errorf("facades mismatch (-want +got):\n%s", d)
	}
	// Still a tools/list result every source reader accepts.
	if _, err := toolset.Decode("tools.lock.json", buf.Bytes()); err != nil {
		t.Errorf("toolset.Decode: %v", err)
	}
}

// TestLockfileSnapshotIsLockfile: every snapshot written before facades
// existed is a lockfile without facades, and a lockfile without facades
// is byte for byte a snapshot.
func TestLockfileSnapshotIsLockfile(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "realdata", "*", "*.json"))
	if len(files) == 0 {
		t.Fatal("no real data")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lock, err := Decode(f, data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(lock.Facades) != 0 {
			t.Errorf("%s: facades %v", f, lock.Facades)
		}
		var snap, lk bytes.Buffer
		if err := toolset.WriteSnapshot(&snap, lock.Set); err != nil {
			t.Fatal(err)
		}
		if err := Write(&lk, lock.Set, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(snap.Bytes(), lk.Bytes()) {
			t.Errorf("%s: lockfile without facades differs from the snapshot", f)
		}
	}
}

// TestLockfileMalformedFacade: a bad facades member is a located
// *toolset.InputError (file, line, column, byte offset, tool, pointer).
func TestLockfileMalformedFacade(t *testing.T) {
	t.Parallel()
	head := "{\"tools\":[{\"name\":\"tally\",\"inputSchema\":{\"type\":\"object\"}}],\n"
	tests := []struct {
		name, facades  string
		line, col      int
		tool, pointer  string
		isFacadeErr    bool
		offsetOfSubstr string
	}{
		{"unknown key", "\"facades\": {\"tally\": {\n  \"renames\": {\"a\": \"b\"}}}}", 3, 3, "tally", "/facades/tally", true, `"renames"`},
		{"bad coerce type", "\"facades\": {\"tally\": {\"coerce\": {\"n\": \"float\"}}}}", 2, 39, "tally", "/facades/tally", true, `"float"`},
		{"unknown tool", "\"facades\": {\"nope\": {}}}", 2, 13, "nope", "/facades/nope", false, `"nope"`},
		{"not an object", "\"facades\": [1]}", 2, 12, "", "/facades", false, `[1]`},
		{"alias without name", "\"facades\": {\"tally\": {\"aliases\": [{\"inject\": {\"a\": 1}}]}}}", 2, 35, "tally", "/facades/tally", true, `{"inject"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(head + tt.facades)
			_, err := Decode("tools.lock.json", data)
			var ie *toolset.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want *toolset.InputError", err, err)
			}
			if !errors.Is(err, toolset.ErrInput) {
				t.Errorf("error does not wrap toolset.ErrInput")
			}
			if got := errors.Is(err, facade.ErrInvalid); got != tt.isFacadeErr {
				t.Errorf("errors.Is(facade.ErrInvalid) = %v, want %v", got, tt.isFacadeErr)
			}
			want := [4]any{tt.line, tt.col, tt.tool, tt.pointer}
			got := [4]any{ie.Line, ie.Col, ie.Tool, ie.Pointer}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("location mismatch (-want +got):\n%s\n%v", d, err)
			}
			if off := bytes.Index(data, []byte(tt.offsetOfSubstr)); ie.Offset != off {
				t.Errorf("offset %d, want %d (%v)", ie.Offset, off, err)
			}
		})
	}
}

func TestLockfileWriteUnknownTool(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := Write(&buf, mustSet(t, twoTools), facade.File{"gone": {}})
	if err == nil || buf.Len() != 0 {
		t.Fatalf("Write with a facade for a missing tool: err %v, wrote %d bytes", err, buf.Len())
	}
}

// TestLockfileAppendCompact: the one-line lockfile a state journal line
// embeds has no newline, and reads back to the same tools and facades as
// Write's output does.
func TestLockfileAppendCompact(t *testing.T) {
	t.Parallel()
	set := mustSet(t, twoTools)
	ff := facade.File{"tally": {Rename: map[string]string{"span": "horizon"}, Aliases: []facade.Alias{{Name: "count_alerts"}}}}
	for _, f := range []facade.File{nil, ff} {
		line, err := AppendCompact([]byte("x"), set, f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.ContainsAny(line, "\n\r") || line[0] != 'x' {
			t.Fatalf("not one line after the prefix: %q", line)
		}
		lock, err := Decode("journal", line[1:])
		if err != nil {
			t.Fatalf("%v\n%s", err, line)
		}
		if got, want := lock.Set.Fingerprint(), set.Fingerprint(); got != want {
			t.Errorf("fingerprint %s, want %s", got, want)
		}
		if d := cmp.Diff(f, lock.Facades, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("facades mismatch (-want +got):\n%s", d)
		}
	}
	if _, err := AppendCompact(nil, set, facade.File{"nope": {}}); err == nil {
		t.Error("a facade for a tool the set lacks: no error")
	}
}
