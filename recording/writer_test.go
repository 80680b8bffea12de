package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/toolset"
)

// waitLong bounds every wait for the writer goroutine.
const waitLong = 20 * time.Second

var start = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// startWriter starts a Writer into dir/rec (created by it) with opts
// changed by tweak, closed when the test ends.
func startWriter(t *testing.T, tweak func(*Options)) (*Writer, string) {
	t.Helper()
	opts := Options{Dir: filepath.Join(t.TempDir(), "rec"), Start: start, Registerer: prometheus.NewRegistry()}
	if tweak != nil {
		tweak(&opts)
	}
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w, opts.Dir
}

// call is a recordable call of tool t with the arguments args.
func call(args string) *Call {
	return &Call{Tool: "t", Args: json.RawMessage(args), Expect: "accepted"}
}

// counterValue reads a counter.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// waitCounter waits until the counter read by get reaches n (the writer
// works after Put returned).
func waitCounter(t *testing.T, what string, get func() float64, n float64) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for get() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed at %v, want %v", what, get(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// recordedFile returns the one file in dir and its content.
func recordedFile(t *testing.T, dir string) (string, string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Fatalf("want one record file in %s, got %d", dir, len(ents))
	}
	p := filepath.Join(dir, ents[0].Name())
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, string(b)
}

// syncBuffer is a log destination the writer goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWriterFile(t *testing.T) {
	t.Parallel()
	w, dir := startWriter(t, nil)
	w.Put(call(`{"q":1.50,"token":"x"}`))
	w.Put(&Call{Tool: "u", Generation: "f00"})
	w.Put(call(`[1]`)) // unrecordable
	w.Close()
	w.Put(call(`{"late":1}`)) // after Close
	path, got := recordedFile(t, dir)
	want := `{"tool":"t","arguments":{"q":1.50,"token":"[redacted]"},"expect":"accepted"}
{"tool":"u","arguments":{},"generation":"f00"}
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("record mismatch (-want +got):\n%s", d)
	}
	if path != w.Path() {
		t.Errorf("Path() = %s, the file is %s", w.Path(), path)
	}
	if name, want := filepath.Base(path), regexp.MustCompile(fmt.Sprintf(`^calls-20260115T120000Z-%d-[0-9a-f]{16}\.jsonl$`, os.Getpid())); !want.MatchString(name) {
		t.Errorf("record file %s, want %s", name, want)
	}
	for p, perm := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, perm)
		}
	}
	for c, want := range map[prometheus.Counter]float64{w.written: 2, w.dropped.WithLabelValues(dropUnrecordable): 1, w.dropped.WithLabelValues(dropClosed): 1} {
		if n := counterValue(t, c); n != want {
			t.Errorf("%s = %v, want %v", c.Desc(), n, want)
		}
	}
}

// The record counters exist before anything happened, so an alert on
// drops sees 0, not no data.
func TestWriterMetricsPresentFromStart(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	startWriter(t, func(o *Options) { o.Registerer = reg })
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, mf := range mfs {
		got[mf.GetName()] = len(mf.GetMetric())
	}
	want := map[string]int{"mcpctl_serve_record_written_total": 1, "mcpctl_serve_record_dropped_total": 4, "mcpctl_serve_record_errors_total": 4}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series per metric mismatch (-want +got):\n%s", d)
	}
}

func TestWriterQueueFullDrops(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	w, dir := startWriter(t, func(o *Options) {
		o.Queue = 1
		o.hook = func() {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-release
		}
	})
	w.Put(call(`{"q":"1"}`))
	select {
	case <-entered: // the writer holds call 1
	case <-time.After(waitLong):
		t.Fatal("the writer did not take the first call")
	}
	w.Put(call(`{"q":"2"}`)) // queued
	w.Put(call(`{"q":"3"}`)) // dropped
	w.Put(call(`{"q":"4"}`)) // dropped
	if n := counterValue(t, w.dropped.WithLabelValues(dropQueueFull)); n != 2 {
		t.Errorf("dropped{queue-full} = %v, want 2", n)
	}
	close(release)
	w.Close()
	_, got := recordedFile(t, dir)
	if want := "{\"tool\":\"t\",\"arguments\":{\"q\":\"1\"},\"expect\":\"accepted\"}\n{\"tool\":\"t\",\"arguments\":{\"q\":\"2\"},\"expect\":\"accepted\"}\n"; got != want {
		t.Errorf("recorded %q, want calls 1 and 2", got)
	}
	if n := counterValue(t, w.written); n != 2 {
		t.Errorf("written = %v, want 2", n)
	}
}

func TestWriterConcurrentPutsWholeLines(t *testing.T) {
	t.Parallel()
	w, dir := startWriter(t, nil)
	const writers, each = 6, 40
	big := strings.Repeat("x", 9000) // more than a pipe buffer's atomic write
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				w.Put(call(fmt.Sprintf(`{"query":"%d-%d-%s"}`, i, j, big)))
			}
		})
	}
	wg.Wait()
	w.Close()
	_, got := recordedFile(t, dir)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	seen := map[string]bool{}
	for i, l := range lines {
		v, err := canon.Parse([]byte(l))
		if err != nil {
			t.Fatalf("line %d is not whole JSON: %v", i+1, err)
		}
		seen[strings.TrimSuffix(v.Get("arguments").Get("query").Str, big)] = true
	}
	if len(lines) != writers*each || len(seen) != writers*each {
		t.Errorf("%d lines, %d distinct calls, want %d", len(lines), len(seen), writers*each)
	}
}

func TestWriterFolderRemoved(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w, dir := startWriter(t, func(o *Options) { o.Logger = log })
	const secret = "hunter2-do-not-log"
	written := func() float64 { return counterValue(t, w.written) }
	for i := range 3 {
		if i > 0 {
			// Remove the folder under the writer: the next record
			// notices, recreates it and starts a new file.
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		w.Put(call(fmt.Sprintf(`{"query":"%s%d"}`, secret, i)))
		waitCounter(t, "written", written, float64(i+1))
	}
	w.Close()
	_, got := recordedFile(t, dir)
	if want := `{"tool":"t","arguments":{"query":"` + secret + `2"},"expect":"accepted"}` + "\n"; got != want {
		t.Errorf("the recreated file holds %q, want only the last call", got)
	}
	if n := counterValue(t, w.errs.WithLabelValues("vanished")); n != 2 {
		t.Errorf("errors{vanished} = %v, want 2", n)
	}
	if n := strings.Count(logs.String(), "the record file was removed"); n != 1 {
		t.Errorf("the removal was logged %d times, want once:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("an argument value reached the logs:\n%s", logs.String())
	}
}

func TestWriterDiskFull(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	// Every write fails with ENOSPC, as on a full disk.
	full := func(*os.File, []byte) (int, error) { return 0, syscall.ENOSPC }
	w, _ := startWriter(t, func(o *Options) { o.Logger, o.write = slog.New(slog.NewTextHandler(&logs, nil)), full })
	for i := range 3 {
		w.Put(call(fmt.Sprintf(`{"q":%d}`, i)))
	}
	waitCounter(t, "dropped{write-failed}", func() float64 { return counterValue(t, w.dropped.WithLabelValues(dropWriteFailed)) }, 3)
	w.Close()
	// Records are written in batches: one failed write per batch.
	if n := counterValue(t, w.errs.WithLabelValues("disk-full")); n < 1 || n > 3 {
		t.Errorf("errors{disk-full} = %v, want 1 to 3 (a failed write per batch)", n)
	}
	if n := counterValue(t, w.written); n != 0 {
		t.Errorf("written = %v, want 0", n)
	}
	if n := strings.Count(logs.String(), "recording a call failed"); n != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", n, logs.String())
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
// records of later writes follow.
func TestHardening19ShortWriteLeavesWholeLines(t *testing.T) {
	t.Parallel()
	sw := &shortWriter{fail: 2}
	w, dir := startWriter(t, func(o *Options) { o.write = sw.write })
	written := func() float64 { return counterValue(t, w.written) }
	failed := func() float64 { return counterValue(t, w.dropped.WithLabelValues(dropWriteFailed)) }
	pad := strings.Repeat("x", 200)
	for i := range 3 {
		// One call per write: wait for each to be written (or dropped).
		w.Put(call(fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, pad)))
		waitCounter(t, "records handled", func() float64 { return written() + failed() }, float64(i+1))
	}
	w.Close()
	_, got := recordedFile(t, dir)
	want := fmt.Sprintf("{\"tool\":\"t\",\"arguments\":{\"i\":0,\"pad\":\"%s\"},\"expect\":\"accepted\"}\n{\"tool\":\"t\",\"arguments\":{\"i\":2,\"pad\":\"%[1]s\"},\"expect\":\"accepted\"}\n", pad)
	if got != want || written() != 2 || failed() != 1 {
		t.Errorf("recorded (written %v, failed %v):\n%s\nwant calls 0 and 2: the second write failed", written(), failed(), got)
	}
}

// Issue 8 item 12: a symlink planted at the record path (the name was
// predictable: calls-<start>-<pid>.jsonl) made the server append calls to
// the file it points to. The name now has a random part and the file is
// created with O_EXCL|O_NOFOLLOW: an existing file or link is never
// opened.
func TestHardening12RecordFileNotFollowed(t *testing.T) {
	t.Parallel()
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
	w1, _ := startWriter(t, func(o *Options) { o.Dir = dir })
	w2, _ := startWriter(t, func(o *Options) { o.Dir = dir })
	w1.Put(call(`{"q":1}`))
	w1.Close()
	w2.Close()
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the writer wrote through a planted symlink: %q", b)
	}
	if w1.Path() == w2.Path() || w1.Path() == old {
		t.Errorf("record file names are predictable: %s, %s", w1.Path(), w2.Path())
	}
	// Whatever the name, an existing file or link there is not opened.
	for _, p := range []string{old, w1.Path()} {
		if f, err := durable.CreateNew(p); err == nil {
			f.Close()
			t.Errorf("CreateNew opened the existing %s", p)
		}
	}
}

// Issue 8 item 12: an existing record folder writable by its group or by
// others (where anyone could plant a file or a link) was used. It is
// refused with an error naming the folder.
func TestHardening12RecordRefusesWritableFolder(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o1777} {
		dir := filepath.Join(t.TempDir(), "rec")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		w, err := New(Options{Dir: dir, Start: start})
		if err == nil {
			w.Close()
			t.Errorf("mode %04o: a writable record folder was accepted", mode)
			continue
		}
		var ie *toolset.InputError
		if !errors.Is(err, ErrDirUnsafe) || !errors.As(err, &ie) || ie.Source != dir {
			t.Errorf("mode %04o: %v, want ErrDirUnsafe located at %s", mode, err, dir)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("mode %04o: files were created in the refused folder", mode)
		}
	}
}

// BenchmarkAppendRecord measures the writer's cost per line (parse,
// redact, encode) against a baseline measured in the same run: parsing
// and encoding the same arguments without redaction (x-baseline).
func BenchmarkAppendRecord(b *testing.B) {
	args := json.RawMessage(`{"query":"a fairly ordinary query","mode":"fast","api_key":"k","auth":{"pin":"1","n":3}}`)
	r, err := NewRedactor([]string{"session", "/auth/pin"})
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	baseline := func() {
		v, err := canon.Parse(args)
		if err != nil {
			b.Fatal(err)
		}
		buf = canon.AppendOrdered(buf[:0], &v)
	}
	record := func() {
		if buf, err = AppendRecord(buf[:0], &Call{Tool: "search", Args: args, Generation: "f00", Expect: "accepted", Redactor: r}); err != nil {
			b.Fatal(err)
		}
	}
	const rounds = 5
	n := max(b.N/rounds, 1)
	var baseT, recT time.Duration
	b.ResetTimer()
	for range rounds {
		t0 := time.Now()
		for range n {
			baseline()
		}
		t1 := time.Now()
		for range n {
			record()
		}
		baseT, recT = baseT+t1.Sub(t0), recT+time.Since(t1)
	}
	b.ReportMetric(float64(recT.Nanoseconds())/float64(n*rounds), "ns/op")
	b.ReportMetric(float64(recT)/float64(baseT), "x-baseline")
}
