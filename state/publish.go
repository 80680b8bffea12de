package state

import (
	"bytes"
	"encoding/json"
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

	// bundle is the publish's bundle while only the journal holds it
	// durably (nil once a checkpoint wrote it, or without one); durable
	// says a checkpoint wrote the contract and bundle files.
	bundle  *Bundle
	durable bool
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
		p.Contract, p.durable = lock, true
	}
	s.history = s.pub.History
	return nil
}

// Publish records rec as the accepted contract with one journal line and
// one fsync (the commit point): the "published" entry carries the
// contract's lockfile and the bundle, so a crash after it loses nothing
// and a crash before it (a line cut short, dropped by Open) leaves the
// previous contract current. The bundle is then copied under bundles/
// without fsync (a cache Open rewrites from the journal), and a pending
// candidate with the same fingerprint is dropped. published.json, the
// contract files and the tool memory are written at checkpoints: every
// compactAfter publishes and at Close. It returns what was recorded.
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
		Time: s.now(), Allowed: rec.Allowed, Contract: rec.Contract, bundle: rec.Bundle}
	line, err := s.publishLine(p)
	if err != nil {
		return nil, err
	}
	if err := s.appendLine(line); err != nil {
		return nil, err
	}
	s.apply(p)
	s.cacheBundle(p)
	err = s.dropPending(p.Fingerprint)
	if s.sinceCheckpoint >= compactAfter {
		err = errors.Join(err, s.checkpoint())
	}
	return p, err
}

// compactAfter is how many publishes the journal carries whole (contract
// and bundle) before a checkpoint writes them to their files.
const compactAfter = 32

// publishLine is a "published" journal line as read back: the Entry, and
// what recovers the publish until a checkpoint: the bundle's config path
// and files, and the contract lockfile. Written by encodePublish, the
// bundle and the contract are its last members, so stripPayload can cut
// them off without decoding them.
type publishLine struct {
	Entry
	Config   string            `json:"config,omitempty"`
	Bundle   map[string][]byte `json:"bundle,omitempty"`
	Contract json.RawMessage   `json:"contract,omitempty"`
}

// payloadKeys start the members stripPayload cuts off: encoding/json
// escapes every quote inside a string, so `,"bundle":` only occurs in a
// line as a member of its top-level object.
var payloadKeys = [][]byte{[]byte(`,"bundle":`), []byte(`,"contract":`)}

// publishLine encodes the journal line of p: the entry, then the bundle,
// then the contract (a compact lockfile), refusing a bundle path that
// would leave the bundle folder (ErrBundlePath).
func (s *State) publishLine(p *Published) ([]byte, error) {
	l := publishLine{Entry: Entry{Time: p.Time, Kind: KindPublished, Fingerprint: p.Fingerprint, Seq: p.Seq, Generation: p.Generation, Allowed: &p.Allowed}}
	if b := p.bundle; b != nil {
		if err := checkBundle(b); err != nil {
			return nil, err
		}
		p.Config, l.Config = b.Config, b.Config
	}
	head, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	line := bytes.NewBuffer(head[:len(head)-1])
	if p.bundle != nil {
		files, err := json.Marshal(p.bundle.Files)
		if err != nil {
			return nil, err
		}
		line.Write(payloadKeys[0])
		line.Write(files)
	}
	line.Write(payloadKeys[1])
	out, err := lockfile.AppendCompact(line.Bytes(), p.Contract.Set, p.Contract.Facades)
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// stripPayload returns line (a journal line, newline included) without
// its bundle and contract members, and its entry; ok is false when line
// has none (or does not decode).
func stripPayload(line []byte) (out []byte, e Entry, ok bool) {
	cut := -1
	for _, k := range payloadKeys {
		if i := bytes.Index(line, k); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return nil, e, false
	}
	out = append(slices.Clip(line[:cut]), "}\n"...)
	if json.Unmarshal(out, &e) != nil {
		return nil, e, false
	}
	return out, e, true
}

// apply makes p the last published contract in memory: the tool memory,
// the history (at most Options.History), the fingerprints. The caller
// holds s.mu.
func (s *State) apply(p *Published) {
	s.remember(p.Contract)
	s.history = append(slices.Clone(s.history), p)
	if n := len(s.history) - s.opts.History; n > 0 {
		s.history = s.history[n:]
	}
	s.pub.Seq, s.pub.History = p.Seq, s.history
	s.pub.Fingerprints = appendFingerprint(s.pub.Fingerprints, p.Fingerprint)
	s.sinceCheckpoint++
}

// cacheBundle copies p's bundle under bundles/SEQ without fsync (the
// journal holds it durably); a failure is logged: Open and LastBundle
// write it again.
func (s *State) cacheBundle(p *Published) {
	if p.bundle == nil {
		return
	}
	if err := s.writeBundle(bundlePath(p.Seq), p.bundle, durable.WriteFileNoSync); err != nil {
		s.log.Warn("state: cannot copy the config bundle", "seq", p.Seq, "err", err)
	}
}

// checkBundle refuses a bundle whose config is not one of its files or
// with a path that would leave the bundle folder (ErrBundlePath).
func checkBundle(b *Bundle) error {
	if _, ok := b.Files[b.Config]; !ok {
		return fmt.Errorf("%w: the config %q is not one of the bundle's files", ErrBundlePath, b.Config)
	}
	for _, name := range slices.Sorted(maps.Keys(b.Files)) {
		if !filepath.IsLocal(filepath.FromSlash(name)) || filepath.ToSlash(filepath.Clean(filepath.FromSlash(name))) != name {
			return fmt.Errorf("%w: %q is not a clean relative path inside the bundle folder", ErrBundlePath, name)
		}
	}
	return nil
}

// writeBundle copies b under the folder rel with write (durable.WriteFile
// or WriteFileNoSync), refusing a path that would leave it
// (ErrBundlePath).
func (s *State) writeBundle(rel string, b *Bundle, write func(string, []byte, os.FileMode) error) error {
	if err := checkBundle(b); err != nil {
		return err
	}
	_ = os.RemoveAll(s.path(rel)) // a leftover of a crash, or a torn cache
	for name, data := range b.Files {
		dst := s.path(path.Join(rel, name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := write(dst, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// prune removes the contracts no longer in the history and every bundle
// but the last publish's (the only one served: LastBundle); a failure
// only leaves a file behind, logged.
func (s *State) prune() {
	keep := map[string]bool{}
	for _, p := range s.history {
		keep[strconv.FormatInt(p.Seq, 10)] = true
	}
	last := strconv.FormatInt(s.pub.Seq, 10)
	for _, d := range []struct{ dir, suffix string }{{dContracts, ".lock.json"}, {dBundles, ""}} {
		entries, _ := os.ReadDir(s.path(d.dir))
		for _, e := range entries {
			name := e.Name()
			seq := name[:max(0, len(name)-len(d.suffix))]
			if keep[seq] && (d.dir == dContracts || seq == last) {
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
// false when the last publish had no bundle. A bundle only the journal
// holds yet is copied out first when its copy differs.
func (s *State) LastBundle() (config string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.history) == 0 || s.history[len(s.history)-1].Config == "" {
		return "", false
	}
	p := s.history[len(s.history)-1]
	if p.bundle != nil && !s.bundleCached(p) {
		s.cacheBundle(p)
	}
	return s.path(path.Join(bundlePath(p.Seq), p.Config)), true
}

// bundleCached reports whether bundles/SEQ holds p's bundle, byte for
// byte.
func (s *State) bundleCached(p *Published) bool {
	for name, data := range p.bundle.Files {
		got, err := os.ReadFile(s.path(path.Join(bundlePath(p.Seq), name)))
		if err != nil || !bytes.Equal(got, data) {
			return false
		}
	}
	return true
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
// (with their facades) in the memory, beside those removed earlier; the
// tools of the last contract are looked up there (LastPublished). A
// checkpoint writes it to memory.lock.json. The caller holds s.mu.
func (s *State) remember(lock *lockfile.Lock) {
	if len(s.history) > 0 {
		prev := s.history[len(s.history)-1].Contract
		for _, t := range prev.Set.Tools {
			if lock.Set.Lookup(t.Name) != nil {
				continue
			}
			s.memory[t.Name], s.memoryDirty = t, true
			delete(s.memoryFF, t.Name)
			if b, ok := prev.Facades[t.Name]; ok {
				s.memoryFF[t.Name] = b
			}
		}
	}
	for _, t := range lock.Set.Tools {
		if _, ok := s.memory[t.Name]; ok {
			delete(s.memory, t.Name)
			delete(s.memoryFF, t.Name)
			s.memoryDirty = true
		}
	}
}

// writeMemory writes the memory to memory.lock.json, durably, when it
// changed since. The caller holds s.mu.
func (s *State) writeMemory() error {
	if !s.memoryDirty {
		return nil
	}
	set, err := toolset.NewSet(s.path(fMemory), slices.Collect(maps.Values(s.memory)))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := lockfile.Write(&buf, set, facade.File(s.memoryFF)); err != nil {
		return err
	}
	if err := durable.WriteFile(s.path(fMemory), buf.Bytes(), 0o600); err != nil {
		return err
	}
	s.memoryDirty = false
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
