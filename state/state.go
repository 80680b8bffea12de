package state

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/toolset"
)

// ErrCorrupt is wrapped by every error about a state file that cannot be
// read back (*CorruptError).
var ErrCorrupt = errors.New("corrupt state file")

// CorruptError is a located problem in a state file: the file, the byte
// offset (-1 when unknown), the 1-based line and column (0 when unknown)
// and what is wrong.
type CorruptError struct {
	File      string
	Offset    int64
	Line, Col int
	Msg       string
	Err       error
}

func (e *CorruptError) Error() string {
	where := e.File
	if e.Line > 0 {
		where += fmt.Sprintf(":%d", e.Line)
		if e.Col > 0 {
			where += fmt.Sprintf(":%d", e.Col)
		}
	}
	if e.Offset >= 0 {
		where += fmt.Sprintf(" (byte offset %d)", e.Offset)
	}
	return where + ": " + e.Msg
}

// Unwrap returns ErrCorrupt and the cause, if any.
func (e *CorruptError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrCorrupt, e.Err}
	}
	return []error{ErrCorrupt}
}

// Options tunes Open. The zero value keeps one published contract, reads
// the system clock and logs nothing.
type Options struct {
	// History is how many published contracts are kept (gate.transitive:
	// N); 0 means 1.
	History int
	// UsageDays is how many UTC days of usage buckets are kept; 0 means 90.
	UsageDays int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives warnings (a torn journal line); nil is silent.
	Logger *slog.Logger
}

// State is an open state folder. Its methods are safe for concurrent use.
type State struct {
	dir  string
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	pub      publishedFile
	history  []*Published // oldest first, contracts loaded
	memory   map[string]*toolset.Tool
	memoryFF map[string]facade.Block
	// memoryDirty: the memory changed since memory.lock.json was written;
	// sinceCheckpoint counts the publishes only the journal holds.
	memoryDirty     bool
	sinceCheckpoint int
	pending         map[string]*Pending
	// superseded maps each stale candidate to the one that superseded it
	// (from the journal).
	superseded map[string]string
	journal    *os.File
	warnings   []error

	usage *Counters
}

// Open opens the state folder dir, creating it (0700) when missing, and
// loads everything in it. A folder its group or others may write is an
// error wrapping durable.ErrDirUnsafe; a file that cannot be read back is
// a *CorruptError (wrapping ErrCorrupt) with its location. A journal whose
// last line was cut short (a crash mid-append) is not an error: the torn
// bytes are dropped and a warning is logged and kept (Warnings).
func Open(dir string, opts Options) (*State, error) {
	if opts.History <= 0 {
		opts.History = 1
	}
	if opts.UsageDays <= 0 {
		opts.UsageDays = 90
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := durable.CheckPrivateDir(dir); err != nil {
		return nil, err
	}
	s := &State{dir: dir, opts: opts, log: log, superseded: map[string]string{}}
	if err := s.load(); err != nil {
		return nil, err
	}
	j, err := durable.OpenAppend(s.path(fJournal))
	if err != nil {
		return nil, err
	}
	s.journal = j
	return s, nil
}

// load reads every file of the folder.
func (s *State) load() error {
	for _, step := range []func() error{s.loadPublished, s.loadMemory, s.checkJournal, s.replay, s.loadPending, s.loadUsage} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Dir returns the state folder.
func (s *State) Dir() string { return s.dir }

// Warnings returns what Open found wrong but could recover from.
func (s *State) Warnings() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.warnings...)
}

// Close flushes the usage counters, writes a checkpoint when a publish
// is only in the journal (so the next Open reads files, not the journal's
// contracts) and closes the journal.
func (s *State) Close() error {
	err := s.Flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.journal != nil && s.sinceCheckpoint > 0 {
		err = errors.Join(err, s.checkpoint())
	}
	if s.journal != nil {
		err = errors.Join(err, s.journal.Close())
		s.journal = nil
	}
	return err
}

func (s *State) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

func (s *State) now() time.Time { return s.opts.Now().UTC() }

// The files of the folder.
const (
	fPublished = "published.json"
	fMemory    = "memory.lock.json"
	fJournal   = "journal.jsonl"
	dPending   = "pending"
	fUsage     = "usage.json"
	dContracts = "contracts"
	dBundles   = "bundles"
)
