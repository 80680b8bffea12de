package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/toolset"
)

const freeConfig = `tools:
  - name: free
    inputSchema: {type: object}
    handler: {static: {text: ok}}
`

// Issue 8 item 12: --record wrote the values of members named with the
// plural or a digit form of a secret word.
func TestHardening12RecordRedactsWordParts(t *testing.T) {
	s, dir := recordingServer(t, freeConfig)
	cs := sdkSession(t, s)
	args := map[string]any{"passwords": "pw-1", "tokens": []any{"tk-1"}, "secrets": "s-1", "cookies": "c-1",
		"refresh_tokens": "r-1", "apiKeys": map[string]any{"a": "a-1"}, "token2": "t-2", "max_tokens": 7, "query": "q-1"}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: args}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, got := recordedFile(t, dir)
	for _, v := range []string{"pw-1", "tk-1", "s-1", "c-1", "r-1", "a-1", "t-2"} {
		if strings.Contains(got, v) {
			t.Errorf("the secret %q was recorded:\n%s", v, got)
		}
	}
	if !strings.Contains(got, `"max_tokens":7`) || !strings.Contains(got, `"query":"q-1"`) {
		t.Errorf("values that are not secrets were redacted:\n%s", got)
	}
}

// Issue 8 item 12: a symlink planted at the record path (the name was
// predictable: calls-<start>-<pid>.jsonl) made the server append calls to
// the file it points to. The name now has a random part and the file is
// created with O_EXCL|O_NOFOLLOW: an existing file or link is never
// opened.
func TestHardening12RecordFileNotFollowed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rec")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, fmt.Sprintf("calls-20260115T120000Z-%d.jsonl", os.Getpid()))
	if err := os.Symlink(victim, old); err != nil {
		t.Fatal(err)
	}
	s, _ := startServer(t, freeConfig, func(o *testOptions) { o.RecordDir = dir })
	cs := sdkSession(t, s)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: map[string]any{"q": 1}}); err != nil {
		t.Fatal(err)
	}
	s2, _ := startServer(t, freeConfig, func(o *testOptions) { o.RecordDir = dir })
	s.Close()
	s2.Close()
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the server wrote through a planted symlink: %q", b)
	}
	if s.rec.path == s2.rec.path || s.rec.path == old {
		t.Errorf("record file names are predictable: %s, %s", s.rec.path, s2.rec.path)
	}
	// Whatever the name, an existing file or link there is not opened.
	if f, err := createRecordFile(old); err == nil {
		f.Close()
		t.Error("createRecordFile opened an existing symlink")
	}
	if f, err := createRecordFile(s.rec.path); err == nil {
		f.Close()
		t.Error("createRecordFile opened an existing file")
	}
}

// Issue 8 item 12: an existing record folder writable by its group or by
// others (where anyone could plant a file or a link) was used. It is
// refused with an error naming the folder.
func TestHardening12RecordRefusesWritableFolder(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o770, 0o1777} {
		dir := filepath.Join(t.TempDir(), "rec")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, t.TempDir(), "mcpctl.serve.yaml", freeConfig)
		s, err := New(context.Background(), Options{ConfigPath: path, RecordDir: dir, Clock: clocktest.New(time.Unix(0, 0))})
		if err == nil {
			s.Close()
			t.Errorf("mode %04o: a writable record folder was accepted", mode)
			continue
		}
		var ie *toolset.InputError
		if !errors.Is(err, ErrRecordDirUnsafe) || !errors.As(err, &ie) || ie.Source != dir {
			t.Errorf("mode %04o: %v, want ErrRecordDirUnsafe located at %s", mode, err, dir)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("mode %04o: files were created in the refused folder", mode)
		}
	}
}

// shortWriter writes to the record file like a disk that fills up: the
// first failing write stores only half of its bytes, then fails with
// ENOSPC; the writes after it succeed (room was made).
type shortWriter struct {
	mu    sync.Mutex
	calls int
	fail  int // the write that fails (1-based)
}

func (w *shortWriter) write(f *os.File, p []byte) (int, error) {
	w.mu.Lock()
	w.calls++
	fail := w.calls == w.fail
	w.mu.Unlock()
	if !fail {
		return f.Write(p)
	}
	n, err := f.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	return n, syscall.ENOSPC
}

// Issue 8 item 19: a write cut short by a full disk left a torn record in
// the file, the records after it were appended to the torn line, and the
// whole recording then failed to replay. A short write is now truncated
// back to the last whole line: every line on disk is whole, and the
// records of later writes replay.
func TestHardening19ShortWriteLeavesWholeLines(t *testing.T) {
	w := &shortWriter{fail: 2}
	s, dir := recordingServer(t, freeConfig, func(o *testOptions) { o.recordWrite = w.write })
	cs := sdkSession(t, s)
	written := func() float64 { return counterValue(t, s.rec.written) }
	failed := func() float64 { return counterValue(t, s.rec.dropped.WithLabelValues(dropWriteFailed)) }
	for i := range 3 {
		// One call per write: wait for each to be written (or dropped).
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: map[string]any{"i": i, "pad": strings.Repeat("x", 200)}}); err != nil {
			t.Fatal(err)
		}
		waitCounter(t, "records handled", func() float64 { return written() + failed() }, float64(i+1))
	}
	s.Close()
	_, got := recordedFile(t, dir)
	calls, _, err := fixtures.ReadFile("rec.jsonl", []byte(got))
	if err != nil {
		t.Fatalf("the recording does not replay: %v\n%s", err, got)
	}
	var is []float64
	for _, c := range calls {
		v, _ := c.Arguments["i"].(json.Number).Float64()
		is = append(is, v)
	}
	if fmt.Sprint(is) != "[0 2]" || written() != 2 || failed() != 1 {
		t.Errorf("recorded calls %v (written %v, failed %v), want [0 2]: the second write failed\n%s", is, written(), failed(), got)
	}
}
