package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/fixtures"
)

// Issue 8 item 19, on a real full disk: the record folder is on a 64 KiB
// tmpfs (needs root; skipped otherwise). Calls are recorded until the disk
// is full; every line on disk is whole and they are exactly the records
// counted as written.
func TestHardening19DiskFullTmpfs(t *testing.T) {
	t.Parallel()
	mnt := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dir := filepath.Join(mnt, "rec")
	s, _ := startServer(t, freeConfig, func(o *testOptions) { o.RecordDir = dir })
	cs := sdkSession(t, s)
	written := func() float64 { return recordMetric(t, s, "written_total", "") }
	failed := func() float64 { return recordMetric(t, s, "dropped_total", "write-failed") }
	// 5,000-byte records: the 14th cannot fit whole.
	pad := strings.Repeat("x", 5000)
	for i := 0; failed() < 3; i++ {
		if i == 100 {
			t.Fatal("100 records of 5,000 bytes fit on a 64 KiB tmpfs")
		}
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "free", Arguments: map[string]any{"i": i, "pad": pad}}); err != nil {
			t.Fatal(err)
		}
		waitCounter(t, "records handled", func() float64 { return written() + failed() }, float64(i+1))
	}
	s.Close()
	_, got := recordedFile(t, dir)
	calls, _, err := fixtures.ReadFile("rec.jsonl", []byte(got))
	if err != nil {
		t.Fatalf("the recording on the full disk does not replay: %v", err)
	}
	if len(calls) == 0 || float64(len(calls)) != written() || !strings.HasSuffix(got, "\n") {
		t.Errorf("%d whole records on disk, %v counted as written; want the same, at least one", len(calls), written())
	}
	if n := recordMetric(t, s, "errors_total", "disk-full"); n < 1 {
		t.Errorf("errors{disk-full} = %v, want at least 1", n)
	}
}
