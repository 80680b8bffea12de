package state

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/diff"
)

// Pending is a refused candidate waiting for a decision, named by its
// fingerprint: when it was refused (Time, from the state's clock), what it
// was gated against (Against, a fingerprint) and the findings.
type Pending struct {
	Fingerprint string        `json:"fingerprint"`
	Time        time.Time     `json:"time"`
	Against     string        `json:"against,omitempty"`
	Findings    []diff.Change `json:"findings"`
}

// ErrFingerprint is the error of a name that is not a hex SHA-256.
var ErrFingerprint = errors.New("not a fingerprint (64 lowercase hex digits)")

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func pendingPath(fp string) string { return path.Join(dPending, fp+".json") }

func (s *State) loadPending() error {
	s.pending = map[string]*Pending{}
	entries, err := os.ReadDir(s.path(dPending))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		fp, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !fingerprintRE.MatchString(fp) {
			continue // a temporary file, or not ours
		}
		var p Pending
		if _, err := s.readJSON(pendingPath(fp), &p); err != nil {
			return err
		}
		s.pending[fp] = &p
	}
	// A crash after a publish's journal line, before its removal reached
	// the disk, leaves the published candidate's file behind.
	if n := len(s.history); n > 0 {
		return s.dropPending(s.history[n-1].Fingerprint)
	}
	return nil
}

// AddPending stores a refused candidate (replacing one with the same
// fingerprint) and journals it; p.Time is set from the clock.
func (s *State) AddPending(p Pending) error {
	if !fingerprintRE.MatchString(p.Fingerprint) {
		return ErrFingerprint
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p.Time = s.now()
	if err := os.MkdirAll(s.path(dPending), 0o700); err != nil {
		return err
	}
	if err := s.writeJSON(pendingPath(p.Fingerprint), p); err != nil {
		return err
	}
	s.pending[p.Fingerprint] = &p
	delete(s.superseded, p.Fingerprint)
	return s.appendEntry(Entry{Kind: KindPending, Fingerprint: p.Fingerprint, Findings: p.Findings})
}

// Supersede drops every pending candidate but keep, the candidate the
// state's config went on to (refused and pending, or published; "" when
// it no longer builds) and also (candidates still pending beside it: a
// gateway's quarantined upstream change while the rest of its config is
// published), and journals each as superseded by keep: the config no longer builds them, so
// they are no longer offered for a decision, and a decision about one is
// refused with *SupersededError.
func (s *State) Supersede(keep string, also ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fp := range slices.Sorted(maps.Keys(s.pending)) {
		if fp == keep || slices.Contains(also, fp) {
			continue
		}
		if err := s.dropPending(fp); err != nil {
			return err
		}
		s.superseded[fp] = keep
		if err := s.appendEntry(Entry{Kind: KindSuperseded, Fingerprint: fp, By: keep}); err != nil {
			return err
		}
	}
	return nil
}

// checkPending returns nil when fp is pending, else *SupersededError or
// ErrNotPending (wrapped, with fp). The caller holds s.mu.
func (s *State) checkPending(fp string) error {
	if _, ok := s.pending[fp]; ok {
		return nil
	}
	if by, ok := s.superseded[fp]; ok {
		return &SupersededError{Fingerprint: fp, By: by}
	}
	return fmt.Errorf("%s: %w", fp, ErrNotPending)
}

// CheckPending returns nil when fingerprint is pending, else
// *SupersededError (a stale candidate) or an error wrapping ErrNotPending.
func (s *State) CheckPending(fingerprint string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checkPending(fingerprint)
}

// noteSuperseded rebuilds the map of stale candidates from the journal:
// superseded, until pending again.
func (s *State) noteSuperseded(entries []Entry) {
	for _, e := range entries {
		switch e.Kind {
		case KindSuperseded:
			s.superseded[e.Fingerprint] = e.By
		case KindPending, KindPublished:
			delete(s.superseded, e.Fingerprint)
		}
	}
}

// PendingList returns the pending candidates, oldest first.
func (s *State) PendingList() []Pending {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Pending, 0, len(s.pending))
	for _, p := range s.pending {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Pending) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Fingerprint, b.Fingerprint)
	})
	return out
}

// GetPending returns the pending candidate with this fingerprint.
func (s *State) GetPending(fingerprint string) (Pending, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pending[fingerprint]
	if !ok {
		return Pending{}, false
	}
	return *p, true
}

// DropPending removes a pending candidate (no journal entry; Rejected
// journals). Dropping one that is not pending is not an error.
func (s *State) DropPending(fingerprint string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropPending(fingerprint)
}

func (s *State) dropPending(fp string) error {
	if _, ok := s.pending[fp]; !ok {
		return nil
	}
	if err := os.Remove(s.path(pendingPath(fp))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	delete(s.pending, fp)
	return nil
}
