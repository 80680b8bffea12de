package state

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/durable"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/toolset"
)

// What allowed a publish (Allowance.Kind).
const (
	First         = "first"          // nothing to gate against: the first contract
	AutoSafe      = "auto-safe"      // the gate found nothing above safe
	AllowBreaking = "allow-breaking" // serve --allow-breaking overrode the gate
	GateAllow     = "gate-allow"     // gate.allow entries covered the findings
	Approval      = "approval"       // an operator approved the pending candidate
)

// Allowance says what allowed a publish: Kind (First, AutoSafe,
// AllowBreaking, GateAllow or Approval), the gate.allow entries that
// applied, and an approval's reason, actor and expiry.
type Allowance struct {
	Kind    string     `json:"kind"`
	Entries []string   `json:"entries,omitempty"`
	Reason  string     `json:"reason,omitempty"`
	Actor   string     `json:"actor,omitempty"`
	Until   *time.Time `json:"until,omitempty"`
}

// Bundle is a config bundle: Files maps each file's path, relative to the
// bundle's root (slash-separated, no "..", not absolute), to its bytes;
// Config is the path of the config file among them.
type Bundle struct {
	Config string
	Files  map[string][]byte
}

// ErrBundlePath is wrapped by the error of a bundle path that would leave
// the bundle folder, or a bundle whose Config is not one of its Files.
var ErrBundlePath = errors.New("bad bundle path")

// Record is what Publish writes: the accepted contract (tools and their
// facades), the generation number of the process that published it, what
// allowed it, and the config bundle it was built from (nil: none).
type Record struct {
	Contract *lockfile.Lock
	// Fingerprint is Contract.Set.Fingerprint(), when the caller has it
	// already (a generation's); "" computes it.
	Fingerprint string
	Generation  int64
	Allowed     Allowance
	Bundle      *Bundle
}

// Published is one published contract as kept in the state: Seq counts the
// publishes of this state folder (1, 2, …; across restarts), Fingerprint is
// the tool set's (toolset.Set.Fingerprint, the generation's fingerprint),
// Time comes from the state's clock, Config is the bundle's config path
// ("" without a bundle). Contract is loaded by Open.
type Published struct {
	Seq         int64          `json:"seq"`
	Generation  int64          `json:"generation"`
	Fingerprint string         `json:"fingerprint"`
	Time        time.Time      `json:"time"`
	Allowed     Allowance      `json:"allowed"`
	Config      string         `json:"config,omitempty"`
	Contract    *lockfile.Lock `json:"-"`
}

// maxFingerprints bounds the fingerprints published.json remembers.
const maxFingerprints = 4096

// publishedFile is published.json.
type publishedFile struct {
	Seq     int64        `json:"seq"`
	History []*Published `json:"history"`
	// Fingerprints are those of every contract ever published here, oldest
	// first (the last maxFingerprints).
	Fingerprints []string `json:"fingerprints"`
}

func contractPath(seq int64) string {
	return path.Join(dContracts, strconv.FormatInt(seq, 10)+".lock.json")
}
func bundlePath(seq int64) string { return path.Join(dBundles, strconv.FormatInt(seq, 10)) }

func (s *State) loadPublished() error {
	if _, err := s.readJSON(fPublished, &s.pub); err != nil {
		return err
	}
	for _, p := range s.pub.History {
		lock, err := lockfile.ReadFile(s.path(contractPath(p.Seq)))
		if err != nil {
			return &CorruptError{File: s.path(contractPath(p.Seq)), Offset: -1, Msg: err.Error(), Err: err}
		}
		p.Contract = lock
	}
	s.history = s.pub.History
	return nil
}

// Publish records rec as the accepted contract: its lockfile, its bundle,
// the memory of its tools, then published.json (the commit point: a crash
// before it leaves the previous contract current), each written atomically
// and durably; contracts and bundles beyond Options.History are removed and
// a "published" entry is appended to the journal. A pending candidate with
// the same fingerprint is dropped. It returns what was recorded.
func (s *State) Publish(rec Record) (*Published, error) {
	if rec.Contract == nil || rec.Contract.Set == nil {
		return nil, errors.New("publish: no contract")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fp := rec.Fingerprint
	if fp == "" {
		fp = rec.Contract.Set.Fingerprint()
	}
	p := &Published{Seq: s.pub.Seq + 1, Generation: rec.Generation, Fingerprint: fp,
		Time: s.now(), Allowed: rec.Allowed, Contract: rec.Contract}
	if err := s.writeContract(p, rec); err != nil {
		return nil, err
	}
	if err := s.remember(rec.Contract); err != nil {
		return nil, err
	}
	next := s.pub
	next.Seq = p.Seq
	next.History = append(slices.Clone(s.pub.History), p)
	if n := len(next.History) - s.opts.History; n > 0 {
		next.History = next.History[n:]
	}
	next.Fingerprints = appendFingerprint(s.pub.Fingerprints, p.Fingerprint)
	if err := s.writeJSON(fPublished, next); err != nil {
		return nil, err
	}
	s.pub, s.history = next, next.History
	s.prune()
	if err := s.dropPending(p.Fingerprint); err != nil {
		return p, err
	}
	return p, s.appendEntry(Entry{Kind: KindPublished, Fingerprint: p.Fingerprint, Seq: p.Seq, Generation: p.Generation, Allowed: &p.Allowed})
}

// writeContract writes the contract's lockfile and bundle of p.
func (s *State) writeContract(p *Published, rec Record) error {
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, rec.Contract.Set, rec.Contract.Facades); err != nil {
		return err
	}
	if err := os.MkdirAll(s.path(dContracts), 0o700); err != nil {
		return err
	}
	if err := durable.WriteFile(s.path(contractPath(p.Seq)), buf.Bytes(), 0o600); err != nil {
		return err
	}
	if rec.Bundle == nil {
		return nil
	}
	p.Config = rec.Bundle.Config
	return s.writeBundle(bundlePath(p.Seq), rec.Bundle)
}

// writeBundle copies b under the folder rel, refusing a path that would
// leave it (ErrBundlePath).
func (s *State) writeBundle(rel string, b *Bundle) error {
	if _, ok := b.Files[b.Config]; !ok {
		return fmt.Errorf("%w: the config %q is not one of the bundle's files", ErrBundlePath, b.Config)
	}
	for _, name := range slices.Sorted(maps.Keys(b.Files)) {
		if !filepath.IsLocal(filepath.FromSlash(name)) || filepath.ToSlash(filepath.Clean(filepath.FromSlash(name))) != name {
			return fmt.Errorf("%w: %q is not a clean relative path inside the bundle folder", ErrBundlePath, name)
		}
	}
	_ = os.RemoveAll(s.path(rel)) // a leftover of a crash before the commit point
	for name, data := range b.Files {
		dst := s.path(path.Join(rel, name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := durable.WriteFile(dst, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// prune removes contracts and bundles no longer in the history; a failure
// only leaves a file behind, logged.
func (s *State) prune() {
	keep := map[string]bool{}
	for _, p := range s.history {
		keep[strconv.FormatInt(p.Seq, 10)] = true
	}
	for _, d := range []struct{ dir, suffix string }{{dContracts, ".lock.json"}, {dBundles, ""}} {
		entries, _ := os.ReadDir(s.path(d.dir))
		for _, e := range entries {
			name := e.Name()
			if len(name) > len(d.suffix) && keep[name[:len(name)-len(d.suffix)]] {
				continue
			}
			if err := os.RemoveAll(s.path(path.Join(d.dir, name))); err != nil {
				s.log.Warn("state: cannot remove an old contract", "path", s.path(path.Join(d.dir, name)), "err", err)
			}
		}
	}
}

func appendFingerprint(fps []string, fp string) []string {
	out := slices.DeleteFunc(slices.Clone(fps), func(x string) bool { return x == fp })
	out = append(out, fp)
	if n := len(out) - maxFingerprints; n > 0 {
		out = out[n:]
	}
	return out
}

// Last returns the last published contract, nil when there is none.
func (s *State) Last() *Published {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) == 0 {
		return nil
	}
	return s.history[len(s.history)-1]
}

// History returns the kept published contracts, oldest first (at most
// Options.History): what gate.transitive checks a candidate against.
func (s *State) History() []*Published {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.history)
}

// LastBundle returns the path of the config file of the last published
// contract's bundle, to serve from when a new config is refused; ok is
// false when the last publish had no bundle.
func (s *State) LastBundle() (config string, ok bool) {
	p := s.Last()
	if p == nil || p.Config == "" {
		return "", false
	}
	return s.path(path.Join(bundlePath(p.Seq), p.Config)), true
}

// HasPublished reports whether a contract with this fingerprint was ever
// published here (among the last 4096).
func (s *State) HasPublished(fingerprint string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.pub.Fingerprints, fingerprint)
}

// loadMemory reads memory.lock.json.
func (s *State) loadMemory() error {
	s.memory, s.memoryFF = map[string]*toolset.Tool{}, map[string]facade.Block{}
	lock, err := lockfile.ReadFile(s.path(fMemory))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &CorruptError{File: s.path(fMemory), Offset: -1, Msg: err.Error(), Err: err}
	}
	for _, t := range lock.Set.Tools {
		s.memory[t.Name] = t
	}
	for name, b := range lock.Facades {
		s.memoryFF[name] = b
	}
	return nil
}

// remember keeps the tools the previous contract had and lock does not
// (with their facades) in memory.lock.json, beside those removed earlier;
// the tools of the last contract are looked up there (LastPublished). The
// caller holds s.mu.
func (s *State) remember(lock *lockfile.Lock) error {
	mem, ff := maps.Clone(s.memory), maps.Clone(s.memoryFF)
	changed := false
	if len(s.history) > 0 {
		prev := s.history[len(s.history)-1].Contract
		for _, t := range prev.Set.Tools {
			if lock.Set.Lookup(t.Name) != nil {
				continue
			}
			mem[t.Name], changed = t, true
			delete(ff, t.Name)
			if b, ok := prev.Facades[t.Name]; ok {
				ff[t.Name] = b
			}
		}
	}
	for _, t := range lock.Set.Tools {
		if _, ok := mem[t.Name]; ok {
			delete(mem, t.Name)
			delete(ff, t.Name)
			changed = true
		}
	}
	if !changed {
		return nil
	}
	set, err := toolset.NewSet(s.path(fMemory), slices.Collect(maps.Values(mem)))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, set, facade.File(ff)); err != nil {
		return err
	}
	if err := durable.WriteFile(s.path(fMemory), buf.Bytes(), 0o600); err != nil {
		return err
	}
	s.memory, s.memoryFF = mem, ff
	return nil
}

// LastPublished returns the last published definition of the tool and its
// facade block, even when a later contract removed it; ok is false when no
// contract published here had the tool.
func (s *State) LastPublished(tool string) (t *toolset.Tool, fb facade.Block, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) > 0 {
		last := s.history[len(s.history)-1].Contract
		if t := last.Set.Lookup(tool); t != nil {
			return t, last.Facades[tool], true
		}
	}
	t, ok = s.memory[tool]
	return t, s.memoryFF[tool], ok
}
