package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/lockfile"
)

// checkpoint writes what the journal alone holds to the files: each kept
// contract (contracts/SEQ.lock.json) not written yet and the last
// publish's bundle (the only one served: LastBundle), the tool memory, the pending folder's removals, then published.json (the commit
// point: a crash before it leaves the journal the only record, read again
// by Open); then contracts and bundles no longer kept are removed and the
// journal is rewritten without the contracts and bundles published.json
// now covers. Every file is written atomically and durably. The caller
// holds s.mu.
func (s *State) checkpoint() error {
	for i, p := range s.history {
		if err := s.writeKept(p, i == len(s.history)-1); err != nil {
			return err
		}
	}
	if err := s.writeMemory(); err != nil {
		return err
	}
	if err := durable.SyncDir(s.path(dPending)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := s.writeJSON(fPublished, s.pub); err != nil {
		return err
	}
	s.prune()
	if err := s.stripJournal(); err != nil {
		return err
	}
	s.sinceCheckpoint = 0
	return nil
}

// writeKept writes p's contract and, when p is the last publish, its
// bundle, durably, unless a checkpoint did already.
func (s *State) writeKept(p *Published, last bool) error {
	if p.durable {
		return nil
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, p.Contract.Set, p.Contract.Facades); err != nil {
		return err
	}
	if err := os.MkdirAll(s.path(dContracts), 0o700); err != nil {
		return err
	}
	if err := durable.WriteFile(s.path(contractPath(p.Seq)), buf.Bytes(), 0o600); err != nil {
		return err
	}
	if p.bundle != nil && last {
		if err := s.writeBundle(bundlePath(p.Seq), p.bundle, durable.WriteFile); err != nil {
			return err
		}
	}
	p.bundle, p.durable = nil, true
	return nil
}

// stripJournal rewrites the journal (atomically, durably) with the
// contract and bundle of each "published" line published.json covers
// removed; every other byte stays. The caller holds s.mu.
func (s *State) stripJournal() error {
	file := s.path(fJournal)
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for line := range bytes.Lines(data) {
		stripped, e, ok := stripPayload(line)
		if !ok || e.Kind != KindPublished || e.Seq > s.pub.Seq {
			out.Write(line)
			continue
		}
		out.Write(stripped)
	}
	if err := durable.WriteFile(file, out.Bytes(), 0o600); err != nil {
		return err
	}
	j, err := durable.OpenAppend(file)
	if err != nil {
		return err
	}
	_ = s.journal.Close()
	s.journal = j
	return nil
}

// replay applies the "published" lines of the journal after the last
// checkpoint (Seq above published.json's), from the contract and bundle
// each carries, and copies the last bundle out when its copy differs (a
// crash tore it). A line without them after the checkpoint (published.json
// rolled back by hand) is skipped with a warning.
func (s *State) replay() error {
	file := s.path(fJournal)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for line := range bytes.Lines(data) {
		if err := s.replayLine(file, line); err != nil {
			return err
		}
	}
	if n := len(s.history); n > 0 && s.history[n-1].bundle != nil && !s.bundleCached(s.history[n-1]) {
		s.cacheBundle(s.history[n-1])
	}
	return nil
}

// replayLine applies one journal line when it is a "published" line after
// the checkpoint.
func (s *State) replayLine(file string, line []byte) error {
	if !bytes.Contains(line, []byte(`"kind":"published"`)) {
		return nil
	}
	if _, e, ok := stripPayload(line); ok && e.Seq <= s.pub.Seq {
		return nil // covered by published.json: not worth decoding
	}
	var l publishLine
	if err := json.Unmarshal(line, &l); err != nil || l.Kind != KindPublished || l.Seq <= s.pub.Seq {
		return nil // checkJournal has judged every line
	}
	if len(l.Contract) == 0 {
		w := fmt.Errorf("%s: publish %d has no contract in the journal and is not in %s; skipped", file, l.Seq, fPublished)
		s.warnings = append(s.warnings, w)
		s.log.Warn("state: " + w.Error())
		s.pub.Seq = l.Seq
		return nil
	}
	lock, err := lockfile.Decode(fmt.Sprintf("%s (publish %d)", file, l.Seq), l.Contract)
	if err != nil {
		return &CorruptError{File: file, Offset: -1, Msg: err.Error(), Err: err}
	}
	p := &Published{Seq: l.Seq, Generation: l.Generation, Fingerprint: l.Fingerprint, Time: l.Time, Config: l.Config, Contract: lock}
	if l.Allowed != nil {
		p.Allowed = *l.Allowed
	}
	if l.Bundle != nil {
		p.bundle = &Bundle{Config: l.Config, Files: l.Bundle}
	}
	s.apply(p)
	return nil
}
