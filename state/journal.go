package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/internal/durable"
)

// The kinds of journal entries.
const (
	KindPublished = "published" // a contract was published (Allowed says why)
	KindRefused   = "refused"   // a candidate was refused (Findings)
	KindPending   = "pending"   // a refused candidate waits for a decision
	KindApproved  = "approved"  // an operator approved a pending candidate
	KindRejected  = "rejected"  // an operator rejected (dropped) one
	// KindSuperseded: a pending candidate dropped because the config
	// went on to another candidate (By), refused or published.
	KindSuperseded = "superseded"
)

// Entry is one line of journal.jsonl: when, what (Kind), which candidate
// (Fingerprint), and, by kind, the publish's Seq, Generation and Allowed,
// the Findings of a refusal, an operator's Reason, Actor and Until.
type Entry struct {
	Time        time.Time     `json:"time"`
	Kind        string        `json:"kind"`
	Fingerprint string        `json:"fingerprint"`
	Seq         int64         `json:"seq,omitempty"`
	Generation  int64         `json:"generation,omitempty"`
	Allowed     *Allowance    `json:"allowed,omitempty"`
	Findings    []diff.Change `json:"findings,omitempty"`
	Reason      string        `json:"reason,omitempty"`
	Actor       string        `json:"actor,omitempty"`
	Until       *time.Time    `json:"until,omitempty"`
	// By is the candidate that superseded this one (KindSuperseded).
	By string `json:"by,omitempty"`
}

// ErrClosed is returned by a write to a closed State.
var ErrClosed = errors.New("the state is closed")

// ErrNotPending is the error of a decision about a fingerprint that is not
// pending.
var ErrNotPending = errors.New("no pending candidate has this fingerprint")

// ErrSuperseded is wrapped by *SupersededError.
var ErrSuperseded = errors.New("the candidate is stale: superseded by a newer one")

// SupersededError is the error of a decision about a candidate that was
// pending until the config went on to another candidate, By (refused, so
// pending in its place, or published; "" when the config stopped building
// at all). It wraps ErrSuperseded and ErrNotPending.
type SupersededError struct {
	Fingerprint, By string
}

func (e *SupersededError) Error() string {
	if e.By == "" {
		return fmt.Sprintf("%s is stale: the config no longer builds it (its inputs are gone or invalid)", e.Fingerprint)
	}
	return fmt.Sprintf("%s is stale: the config went on to candidate %s since (decide that one, if it is pending)", e.Fingerprint, e.By)
}

// Unwrap returns ErrSuperseded and ErrNotPending.
func (e *SupersededError) Unwrap() []error { return []error{ErrSuperseded, ErrNotPending} }

// appendEntry stamps e with the clock and appends it as one line
// (appendLine). The caller holds s.mu.
func (s *State) appendEntry(e Entry) error {
	e.Time = s.now()
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return s.appendLine(line)
}

// appendLine appends line (JSON without its newline) to the journal with
// one write(2) (O_APPEND) and an fsync. The caller holds s.mu.
func (s *State) appendLine(line []byte) error {
	if s.journal == nil {
		return ErrClosed
	}
	if _, err := s.journal.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return s.journal.Sync()
}

// Journal returns every entry of the journal, oldest first.
func (s *State) Journal() ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(s.path(fJournal))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, _, err := parseJournal(s.path(fJournal), data)
	return entries, err
}

// checkJournal reads the journal once at Open: a line that does not decode
// is a *CorruptError (line and byte offset), except a last line without
// its newline (an append cut short): cut off with a warning when it does
// not decode, completed with its newline when it does, so the next append
// starts on a line of its own.
func (s *State) checkJournal() error {
	file := s.path(fJournal)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	entries, whole, err := parseJournal(file, data)
	if err != nil {
		return err
	}
	s.noteSuperseded(entries)
	if whole == len(data) {
		return nil
	}
	var e Entry
	if json.Unmarshal(data[whole:], &e) == nil {
		// Whole but for its newline: keep it.
		return appendNewline(file)
	}
	w := &CorruptError{File: file, Offset: int64(whole), Msg: fmt.Sprintf("the last line was cut short (%d bytes without a newline); dropped", len(data)-whole)}
	w.Line, w.Col = lineOf(data, whole), 1
	s.warnings = append(s.warnings, w)
	s.log.Warn("state: torn journal line dropped", "file", file, "offset", whole, "bytes", len(data)-whole)
	return os.Truncate(file, int64(whole))
}

func appendNewline(file string) error {
	f, err := durable.OpenAppend(file)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte{'\n'})
	return errors.Join(err, f.Close())
}

// parseJournal decodes the whole lines of data; whole is the length of
// the part made of whole lines.
func parseJournal(file string, data []byte) (entries []Entry, whole int, err error) {
	for off := 0; off < len(data); {
		n := bytes.IndexByte(data[off:], '\n')
		if n < 0 {
			return entries, off, nil
		}
		var e Entry
		if err := json.Unmarshal(data[off:off+n], &e); err != nil {
			ce := corrupt(file, data, int64(off), err)
			if jo := jsonOffset(err); jo >= 0 {
				ce.Offset = int64(off) + jo
				ce.Line, ce.Col = lineOf(data, off), int(jo)+1
			}
			return nil, 0, ce
		}
		entries = append(entries, e)
		off += n + 1
	}
	return entries, len(data), nil
}

func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte{'\n'}) + 1 }

// Refused journals a refused candidate with its findings.
func (s *State) Refused(fingerprint string, findings []diff.Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendEntry(Entry{Kind: KindRefused, Fingerprint: fingerprint, Findings: findings})
}

// Approved journals an operator's approval of a pending candidate (the
// publish that follows journals itself, with an Approval allowance, and
// drops it); *SupersededError when it is stale, else ErrNotPending when it
// is not pending.
func (s *State) Approved(fingerprint, reason, actor string, until *time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkPending(fingerprint); err != nil {
		return fmt.Errorf("approve: %w", err)
	}
	return s.appendEntry(Entry{Kind: KindApproved, Fingerprint: fingerprint, Reason: reason, Actor: actor, Until: until})
}

// Rejected drops the pending candidate and journals the rejection;
// *SupersededError when it is stale, else ErrNotPending when it is not
// pending.
func (s *State) Rejected(fingerprint, reason, actor string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkPending(fingerprint); err != nil {
		return fmt.Errorf("reject: %w", err)
	}
	if err := s.dropPending(fingerprint); err != nil {
		return err
	}
	return s.appendEntry(Entry{Kind: KindRejected, Fingerprint: fingerprint, Reason: reason, Actor: actor})
}
