package serve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// Recording (--record): every tools/call that reaches a generation is
// appended to RecordDir/calls-<UTC start time>-<pid>-<random>.jsonl, one
// file per server start (a new one when it was removed), as one line of
// mcpctl fixture JSON Lines (fixtures.FormatMCPCtl). The file is created,
// never reused (O_EXCL|O_NOFOLLOW, 0600), in a folder its group and others
// cannot write (ErrRecordDirUnsafe):
//
//	{"tool":"search_docs","arguments":{"q":"x","token":"[redacted]"},"generation":"<fingerprint>","expect":"translated"}
//
// tool is the name the client called (an alias stays the alias); arguments
// are as sent, member order and number spelling kept, redacted (see
// RecordConfig); generation is the fingerprint of the generation the call
// ran against; expect is the outcome replay gives the same call against
// the same config: accepted, translated, rejected or unknown-tool (a
// handler that failed is still accepted or translated: its arguments were).
//
// The call path only appends the record to a bounded queue (no goroutine
// is woken per call); one writer goroutine takes the queue every
// RecordFlushInterval (sooner when it is half full), encodes and redacts
// the records and appends them with one write(2) (O_APPEND), so lines
// never interleave. A crash loses at most the records of the last
// interval; Close writes everything queued. A full queue drops the record
// (mcpctl_serve_record_dropped_total{reason="queue-full"}). Calls whose
// arguments are not a JSON object, or whose tool name is empty, cannot be
// written as fixtures and are dropped too (reason "unrecordable"); calls
// refused because the server is shutting down reach no generation and are
// not recorded.
type recorder struct {
	dir     string
	started time.Time // names the files
	log     *slog.Logger

	max  int           // queue bound
	mu   sync.Mutex    // guards queue and shut
	q    []*callRecord // records waiting for the writer
	shut bool
	kick chan struct{} // 1-buffered: the queue is half full
	stop chan struct{}
	done chan struct{}

	written prometheus.Counter
	dropped *prometheus.CounterVec
	errs    *prometheus.CounterVec

	// Writer goroutine only (and newRecorder before it starts).
	path   string // the record file being written
	size   int64  // its size after the last whole write
	f      *os.File
	fi     os.FileInfo
	buf    []byte
	spare  []*callRecord // the other queue, swapped in at each flush
	logged map[string]bool
	hook   func() // tests: runs before each write
	write  func(f *os.File, p []byte) (int, error)
}

// RecordFlushInterval is how often the --record writer appends the calls
// queued since its last write.
const RecordFlushInterval = 50 * time.Millisecond

// callRecord is one call on its way to the recorder.
type callRecord struct {
	tool   string
	args   json.RawMessage
	gen    string
	cfg    *serveconfig.RecordConfig
	expect fixtures.Outcome
	// translated is the arguments a facade made of args (nil when the call
	// was not translated); redaction follows values into them.
	translated []byte
	// facade is the facade of the tool the call reached (nil: none): an
	// argument its renames carry into a redacted position is redacted
	// under its old name too, translated or not.
	facade *facade.Block
	queued bool // put already took it
}

// route records the facade of the tool the call reached.
func (c *callRecord) route(f *facade.Block) {
	if c != nil {
		c.facade = f
	}
}

// set records the call's outcome (nil-safe: no recording).
func (c *callRecord) set(o fixtures.Outcome) {
	if c != nil {
		c.expect = o
	}
}

// passed records a call whose arguments validated: accepted when as sent,
// translated when the tool's facade carried it (the outcomes replay
// gives).
func (c *callRecord) passed(asSent bool, translated []byte) {
	if c == nil {
		return
	}
	if asSent {
		c.set(fixtures.Accepted)
	} else {
		c.set(fixtures.Translated)
		c.translated = translated
	}
}

// DefaultRecordQueue is how many calls may wait for the record writer
// before new ones are dropped.
const DefaultRecordQueue = 4096

// Record drop reasons (the reason label of mcpctl_serve_record_dropped_total).
const (
	dropQueueFull    = "queue-full"
	dropClosed       = "closed"
	dropUnrecordable = "unrecordable"
	dropWriteFailed  = "write-failed"
)

// newRecorder creates dir (0700) and the record file (0600) and starts the
// writer. now names the file.
func newRecorder(dir string, now time.Time, queue int, log *slog.Logger, reg prometheus.Registerer, hook func(), write func(*os.File, []byte) (int, error)) (*recorder, error) {
	if queue <= 0 {
		queue = DefaultRecordQueue
	}
	if write == nil {
		write = writeRecords
	}
	r := &recorder{
		dir: dir, started: now, log: log,
		max: queue, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		logged: map[string]bool{}, hook: hook, write: write,
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
	if err := r.open(); err != nil {
		msg := fmt.Sprintf("--record: cannot write the record file: %v", safefile.UnwrapPath(err))
		if errors.Is(err, ErrRecordDirUnsafe) {
			msg = fmt.Sprintf("--record: refusing the folder: %v", err)
		}
		return nil, &toolset.InputError{Source: dir, Offset: -1, Msg: msg, Err: err}
	}
	// Every series exists from the start, so alerts see 0, not no data.
	for _, reason := range []string{dropQueueFull, dropClosed, dropUnrecordable, dropWriteFailed} {
		r.dropped.WithLabelValues(reason)
	}
	for _, kind := range []string{"open", "disk-full", "write", "vanished"} {
		r.errs.WithLabelValues(kind)
	}
	reg.MustRegister(r.written, r.dropped, r.errs)
	go r.run()
	log.Info("recording calls", "file", r.path)
	return r, nil
}

// start begins the record of one call against generation g (nil when not
// recording); the redaction is live's, the generation published last (a
// reload that adds a redact entry applies to pinned sessions too).
func (r *recorder) start(tool string, args json.RawMessage, g, live *Generation) *callRecord {
	if r == nil {
		return nil
	}
	c := &callRecord{tool: tool, args: args, gen: g.Fingerprint}
	if live == nil {
		live = g
	}
	if live.Config != nil {
		c.cfg = &live.Config.Record
	}
	return c
}

// put queues c for the writer without blocking; a full queue drops it.
// A record is queued once; later puts of it do nothing.
func (r *recorder) put(c *callRecord) {
	if r == nil || c == nil || c.queued {
		return
	}
	c.queued = true
	r.mu.Lock()
	switch {
	case r.shut:
		r.mu.Unlock()
		r.dropped.WithLabelValues(dropClosed).Inc()
		return
	case len(r.q) >= r.max:
		r.mu.Unlock()
		r.dropped.WithLabelValues(dropQueueFull).Inc()
		return
	}
	r.q = append(r.q, c)
	half := len(r.q) == (r.max+1)/2
	r.mu.Unlock()
	if half {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// close stops taking records, writes the queued ones and closes the file.
// It is idempotent and nil-safe.
func (r *recorder) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	already := r.shut
	r.shut = true
	r.mu.Unlock()
	if !already {
		close(r.stop)
	}
	<-r.done
}

func (r *recorder) run() {
	defer close(r.done)
	defer r.closeFile()
	tick := time.NewTicker(RecordFlushInterval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-r.kick:
		case <-r.stop:
			r.flush() // put takes nothing after shut
			return
		}
		r.flush()
	}
}

// flush takes the queue and appends its records with one write.
func (r *recorder) flush() {
	r.mu.Lock()
	batch := r.q
	r.q = r.spare[:0]
	r.mu.Unlock()
	defer func() {
		clear(batch)
		r.spare = batch[:0]
	}()
	if len(batch) == 0 {
		return
	}
	buf := r.buf[:0]
	n := 0
	for _, c := range batch {
		line, err := appendRecord(buf, c)
		if err != nil {
			r.dropped.WithLabelValues(dropUnrecordable).Inc()
			r.log.Debug("call not recorded", "tool", c.tool, "reason", err.Error())
			continue
		}
		buf = line
		n++
	}
	r.buf = buf
	if n == 0 {
		return
	}
	// The file may have been removed since the last write.
	r.checkFile()
	if r.f == nil {
		if err := r.open(); err != nil {
			r.fail("open", err, n)
			return
		}
	}
	if r.hook != nil {
		r.hook()
	}
	if err := r.append(buf); err != nil {
		kind := "write"
		if errors.Is(err, syscall.ENOSPC) {
			kind = "disk-full"
		}
		r.fail(kind, err, n)
		return
	}
	r.written.Add(float64(n))
}

// append writes buf (whole lines) at the end of the record file. A write
// cut short (a full disk) is undone: the file is truncated back to its
// last whole line, so a record is on disk whole or not at all, and the
// next records (the disk may have room again) follow whole lines. When the
// truncation fails too, the file is closed and the next records go to a
// new one; replay reports the torn last line of the old one as a warning.
func (r *recorder) append(buf []byte) error {
	n, err := r.write(r.f, buf)
	if err == nil {
		r.size += int64(n)
		return nil
	}
	if n > 0 {
		if terr := r.f.Truncate(r.size); terr != nil {
			r.log.Error("a record write was cut short and could not be undone: the file ends with a torn line; recording goes on in a new file", "file", r.path, "error", terr)
			r.closeFile()
		}
	}
	return err
}

// writeRecords is the recorder's write to its file (tests replace it).
func writeRecords(f *os.File, p []byte) (int, error) { return f.Write(p) }

// fail counts a failed write of n records and logs the first failure of
// each kind.
func (r *recorder) fail(kind string, err error, n int) {
	r.errs.WithLabelValues(kind).Inc()
	r.dropped.WithLabelValues(dropWriteFailed).Add(float64(n))
	if !r.logged[kind] {
		r.logged[kind] = true
		r.log.Error("recording a call failed; the call was served, the record is dropped (logged once per kind)", "kind", kind, "file", r.path, "error", err)
	}
}

// checkFile notices that the record file was removed (or its folder) and
// starts a new one, so records do not go to an unlinked file.
func (r *recorder) checkFile() {
	if r.f == nil {
		return
	}
	fi, err := os.Stat(r.path)
	if err == nil && os.SameFile(fi, r.fi) {
		return
	}
	r.errs.WithLabelValues("vanished").Inc()
	if !r.logged["vanished"] {
		r.logged["vanished"] = true
		r.log.Warn("the record file was removed; recording to a new one (logged once)", "file", r.path)
	}
	r.closeFile()
}

// open creates the record folder (0700) when it is missing, checks it
// (checkRecordDir) and creates a new record file in it (createRecordFile).
func (r *recorder) open() error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	if err := checkRecordDir(r.dir); err != nil {
		return err
	}
	path := filepath.Join(r.dir, recordName(r.started))
	f, err := createRecordFile(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	r.f, r.fi, r.path, r.size = f, fi, path, fi.Size()
	return nil
}

// ErrRecordDirUnsafe is the error of a --record folder that its group or
// others may write, or that belongs to another user (neither the server's
// nor root): whoever can write it could plant a file or a link where the
// server writes. It is durable.ErrDirUnsafe, the one check of private
// folders (the --state folder gets the same).
var ErrRecordDirUnsafe = durable.ErrDirUnsafe

// checkRecordDir refuses a record folder that is not a folder, that its
// group or others may write, or that another user owns
// (ErrRecordDirUnsafe).
func checkRecordDir(dir string) error { return durable.CheckPrivateDir(dir) }

// recordName names a record file: the server's start (UTC), its pid and
// a random part, so that nobody can plant a file or a link under the name
// in advance.
func recordName(start time.Time) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("calls-%s-%d-%s.jsonl", start.UTC().Format("20060102T150405Z"), os.Getpid(), hex.EncodeToString(b[:]))
}

// createRecordFile creates path (0600) for appending; an existing file or
// link there is an error, never opened (O_EXCL, O_NOFOLLOW).
func createRecordFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|oNoFollow, 0o600)
}

func (r *recorder) closeFile() {
	if r.f != nil {
		if err := r.f.Close(); err != nil {
			r.fail("write", err, 0)
		}
		r.f, r.fi = nil, nil
	}
}

var (
	errNotObject = errors.New("the arguments are not a JSON object")
	errNotJSON   = errors.New("the arguments are not strict JSON")
	errNoTool    = errors.New("the tool name is empty")
)

// appendRecord appends c as one mcpctl JSON Lines record and a newline.
func appendRecord(dst []byte, c *callRecord) ([]byte, error) {
	if c.tool == "" {
		return dst, errNoTool
	}
	args := canon.Value{Kind: canon.Object}
	if len(c.args) > 0 && string(c.args) != "null" {
		v, err := canon.Parse(c.args)
		if err != nil {
			return dst, errNotJSON
		}
		if v.Kind != canon.Object {
			return dst, errNotObject
		}
		args = v
	}
	c.cfg.RedactCall(&args, c.translated, c.facade)
	dst = append(dst, `{"tool":`...)
	dst = canon.AppendString(dst, c.tool)
	dst = append(dst, `,"arguments":`...)
	dst = canon.AppendOrdered(dst, &args)
	if c.gen != "" {
		dst = append(dst, `,"generation":`...)
		dst = canon.AppendString(dst, c.gen)
	}
	if c.expect != "" {
		dst = append(dst, `,"expect":`...)
		dst = canon.AppendString(dst, string(c.expect))
	}
	return append(dst, "}\n"...), nil
}
