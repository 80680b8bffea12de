package recording

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/toolset"
)

// Writer appends calls (`serve --record`) to
// Dir/calls-<UTC start time>-<pid>-<random>.jsonl, one file per Writer (a
// new one when it was removed), one mcpctl JSON Lines record per call
// (AppendRecord). The file is created, never reused (O_EXCL|O_NOFOLLOW,
// 0600), in a folder its group and others cannot write (ErrDirUnsafe).
//
// Put only appends the call to a bounded queue (no goroutine is woken per
// call); one writer goroutine takes the queue every FlushInterval (sooner
// when it is half full), encodes and redacts the records and appends them
// with one write(2) (O_APPEND), so lines never interleave. A crash loses
// at most the records of the last interval; Close writes everything
// queued. A full queue drops the record
// (mcpctl_serve_record_dropped_total{reason="queue-full"}). A call that
// AppendRecord refuses is dropped too (reason "unrecordable"), and so is
// a call put after Close (reason "closed").
type Writer struct {
	dir     string
	started time.Time // names the files
	log     *slog.Logger

	max  int        // queue bound
	mu   sync.Mutex // guards q and shut
	q    []*Call    // records waiting for the writer
	shut bool
	kick chan struct{} // 1-buffered: the queue is half full
	stop chan struct{}
	done chan struct{}

	written prometheus.Counter
	dropped *prometheus.CounterVec
	errs    *prometheus.CounterVec

	// Writer goroutine only (and New before it starts).
	path   string // the record file being written
	size   int64  // its size after the last whole write
	f      *os.File
	fi     os.FileInfo
	buf    []byte
	spare  []*Call // the other queue, swapped in at each flush
	logged map[string]bool
	hook   func() // Options.hook
	write  func(f *os.File, p []byte) (int, error)
}

// Options configures a Writer.
type Options struct {
	// Dir is the record folder, created (0700) when missing.
	Dir string
	// Start names the record files (its UTC time).
	Start time.Time
	// Queue bounds the calls waiting for the writer; 0 means
	// DefaultQueue.
	Queue int
	// Logger receives the writer's failures (nil: silent).
	Logger *slog.Logger
	// Registerer receives the mcpctl_serve_record_* counters (nil: not
	// registered).
	Registerer prometheus.Registerer

	// hook (tests) runs in the writer goroutine before each write.
	hook func()
	// write (tests) replaces the write of records to the file.
	write func(f *os.File, p []byte) (int, error)
}

// FlushInterval is how often the Writer appends the calls queued since
// its last write.
const FlushInterval = 50 * time.Millisecond

// DefaultQueue is how many calls may wait for the Writer before new ones
// are dropped.
const DefaultQueue = 4096

// Drop reasons (the reason label of mcpctl_serve_record_dropped_total).
const (
	dropQueueFull    = "queue-full"
	dropClosed       = "closed"
	dropUnrecordable = "unrecordable"
	dropWriteFailed  = "write-failed"
)

// ErrDirUnsafe is the error of a record folder that its group or others
// may write, or that belongs to another user (neither the server's nor
// root): whoever can write it could plant a file or a link where the
// writer writes. It is durable.ErrDirUnsafe, the one check of private
// folders (the --state folder gets the same).
var ErrDirUnsafe = durable.ErrDirUnsafe

// New creates opts.Dir (0700) and the record file (0600) and starts the
// writer. An error is a *toolset.InputError located at the folder
// (errors.Is ErrDirUnsafe for an unsafe one).
func New(opts Options) (*Writer, error) {
	w := newWriter(opts)
	if err := w.open(); err != nil {
		msg := fmt.Sprintf("--record: cannot write the record file: %v", safefile.UnwrapPath(err))
		if errors.Is(err, ErrDirUnsafe) {
			msg = fmt.Sprintf("--record: refusing the folder: %v", err)
		}
		return nil, &toolset.InputError{Source: opts.Dir, Offset: -1, Msg: msg, Err: err}
	}
	if opts.Registerer != nil {
		opts.Registerer.MustRegister(w.written, w.dropped, w.errs)
	}
	go w.run()
	w.log.Info("recording calls", "file", w.path)
	return w, nil
}

func newWriter(opts Options) *Writer {
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.write == nil {
		opts.write = writeFile
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Writer{
		dir: opts.Dir, started: opts.Start, log: opts.Logger,
		max: opts.Queue, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		logged: map[string]bool{}, hook: opts.hook, write: opts.write,
		written: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcpctl_serve_record_written_total",
			Help: "tools/call records appended to the --record file.",
		}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpctl_serve_record_dropped_total",
			Help: "tools/call records not written, by reason: queue-full (the writer fell behind), write-failed, unrecordable (arguments not a JSON object), closed (the server was closing).",
		}, []string{"reason"}),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpctl_serve_record_errors_total",
			Help: "Failures of the --record writer, by kind: open, disk-full, write, vanished (the file was removed and is recreated).",
		}, []string{"kind"}),
	}
	// Every series exists from the start, so alerts see 0, not no data.
	for _, reason := range []string{dropQueueFull, dropClosed, dropUnrecordable, dropWriteFailed} {
		w.dropped.WithLabelValues(reason)
	}
	for _, kind := range []string{"open", "disk-full", "write", "vanished"} {
		w.errs.WithLabelValues(kind)
	}
	return w
}

// Path returns the record file being written (the writer goroutine may
// change it when the file was removed; read it after Close).
func (w *Writer) Path() string { return w.path }

// Put queues c for the writer without blocking; a full queue drops it.
// A call is queued once; later puts of it do nothing. Put is nil-safe (a
// nil Writer or call: not recording).
func (w *Writer) Put(c *Call) {
	if w == nil || c == nil || c.queued {
		return
	}
	c.queued = true
	w.mu.Lock()
	switch {
	case w.shut:
		w.mu.Unlock()
		w.dropped.WithLabelValues(dropClosed).Inc()
		return
	case len(w.q) >= w.max:
		w.mu.Unlock()
		w.dropped.WithLabelValues(dropQueueFull).Inc()
		return
	}
	w.q = append(w.q, c)
	half := len(w.q) == (w.max+1)/2
	w.mu.Unlock()
	if half {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// Close stops taking calls, writes the queued ones and closes the file.
// It is idempotent and nil-safe.
func (w *Writer) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	already := w.shut
	w.shut = true
	w.mu.Unlock()
	if !already {
		close(w.stop)
	}
	<-w.done
}

func (w *Writer) run() {
	defer close(w.done)
	defer w.closeFile()
	tick := time.NewTicker(FlushInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-w.kick:
		case <-w.stop:
			w.flush() // Put takes nothing after shut
			return
		}
		w.flush()
	}
}

// flush takes the queue and appends its records with one write.
func (w *Writer) flush() {
	w.mu.Lock()
	batch := w.q
	w.q = w.spare[:0]
	w.mu.Unlock()
	defer func() {
		clear(batch)
		w.spare = batch[:0]
	}()
	if len(batch) == 0 {
		return
	}
	n := w.encode(batch)
	if n == 0 {
		return
	}
	// The file may have been removed since the last write.
	w.checkFile()
	if w.f == nil {
		if err := w.open(); err != nil {
			w.fail("open", err, n)
			return
		}
	}
	if w.hook != nil {
		w.hook()
	}
	if err := w.append(w.buf); err != nil {
		kind := "write"
		if errors.Is(err, syscall.ENOSPC) {
			kind = "disk-full"
		}
		w.fail(kind, err, n)
		return
	}
	w.written.Add(float64(n))
}

// encode puts the records of batch in w.buf and returns how many it
// holds; the calls AppendRecord refuses are dropped.
func (w *Writer) encode(batch []*Call) int {
	buf := w.buf[:0]
	n := 0
	for _, c := range batch {
		line, err := AppendRecord(buf, c)
		if err != nil {
			w.dropped.WithLabelValues(dropUnrecordable).Inc()
			w.log.Debug("call not recorded", "tool", c.Tool, "reason", err.Error())
			continue
		}
		buf = line
		n++
	}
	w.buf = buf
	return n
}

// append writes buf (whole lines) at the end of the record file. A write
// cut short (a full disk) is undone: the file is truncated back to its
// last whole line, so a record is on disk whole or not at all, and the
// next records (the disk may have room again) follow whole lines. When the
// truncation fails too, the file is closed and the next records go to a
// new one; replay reports the torn last line of the old one as a warning.
func (w *Writer) append(buf []byte) error {
	n, err := w.write(w.f, buf)
	if err == nil {
		w.size += int64(n)
		return nil
	}
	if n > 0 {
		if terr := w.f.Truncate(w.size); terr != nil {
			w.log.Error("a record write was cut short and could not be undone: the file ends with a torn line; recording goes on in a new file", "file", w.path, "error", terr)
			w.closeFile()
		}
	}
	return err
}

// writeFile is the Writer's write to its file (tests replace it).
func writeFile(f *os.File, p []byte) (int, error) { return f.Write(p) }

// fail counts a failed write of n records and logs the first failure of
// each kind.
func (w *Writer) fail(kind string, err error, n int) {
	w.errs.WithLabelValues(kind).Inc()
	w.dropped.WithLabelValues(dropWriteFailed).Add(float64(n))
	if !w.logged[kind] {
		w.logged[kind] = true
		w.log.Error("recording a call failed; the call was served, the record is dropped (logged once per kind)", "kind", kind, "file", w.path, "error", err)
	}
}

// checkFile notices that the record file was removed (or its folder) and
// starts a new one, so records do not go to an unlinked file.
func (w *Writer) checkFile() {
	if w.f == nil {
		return
	}
	fi, err := os.Stat(w.path)
	if err == nil && os.SameFile(fi, w.fi) {
		return
	}
	w.errs.WithLabelValues("vanished").Inc()
	if !w.logged["vanished"] {
		w.logged["vanished"] = true
		w.log.Warn("the record file was removed; recording to a new one (logged once)", "file", w.path)
	}
	w.closeFile()
}

// open creates the record folder (0700) when it is missing, checks it
// (durable.CheckPrivateDir) and creates a new record file in it
// (durable.CreateNew).
func (w *Writer) open() error {
	if err := os.MkdirAll(w.dir, 0o700); err != nil {
		return err
	}
	if err := durable.CheckPrivateDir(w.dir); err != nil {
		return err
	}
	path := filepath.Join(w.dir, fileName(w.started))
	f, err := durable.CreateNew(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	w.f, w.fi, w.path, w.size = f, fi, path, fi.Size()
	return nil
}

// fileName names a record file: the start (UTC), the pid and a random
// part, so that nobody can plant a file or a link under the name in
// advance.
func fileName(start time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("calls-%s-%d-%s.jsonl", start.UTC().Format("20060102T150405Z"), os.Getpid(), hex.EncodeToString(b[:]))
}

func (w *Writer) closeFile() {
	if w.f != nil {
		if err := w.f.Close(); err != nil {
			w.fail("write", err, 0)
		}
		w.f, w.fi = nil, nil
	}
}
