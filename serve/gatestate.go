package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/state"
)

// ErrRefusedAtStart is returned by New when the gate refuses the first
// config (gated against gate.baseline or the state's last published
// contract) and there is no accepted bundle in the state to serve instead
// (docs/serve.md#state). Nothing is served then.
var ErrRefusedAtStart = errors.New("the gate refused the config at start, with no accepted config to fall back on")

// ErrNotBuilt is returned by Approve when the config on disk no longer
// builds the fingerprint being approved.
var ErrNotBuilt = admin.ErrNotBuilt

// ErrNoState is returned by Approve and Reject on a server without a
// state (serve --state).
var ErrNoState = admin.ErrNoState

// lock is g's contract as a lockfile: its tools and their facade blocks.
func (g *Generation) lock() *lockfile.Lock {
	return &lockfile.Lock{Set: g.Set, Facades: g.Config.Facades()}
}

// usageCounter counts calls per tool and facade rule and answers how many
// fell within a period: *state.State (persisted) or *state.Counters (in
// memory).
type usageCounter interface {
	Count(tool string, rules ...string)
	Usage(tool, rule string, period time.Duration) state.Window
}

// initGateState gives the gate the state (serve --state) and its usage
// counters; without a state, counters in memory that count from now, so
// a removal judged by usage (gate.quietPeriod) passes only once the
// process has been up for the quiet period, as the log says.
func (s *Server) initGateState() {
	s.mem.state = s.opts.State
	if s.opts.State != nil {
		s.mem.usage = s.opts.State
		return
	}
	s.mem.usage = state.NewCounters(s.opts.Clock.Now)
	s.log.Info("no --state: calls are counted in memory from now on; a facade-rule removal or a removal after a sunset passes the gate only when this process has been up gate.quietPeriod without such a call, and a restart starts counting again (docs/serve.md#state)")
}

// countUse counts a call of tool (and the facade rules it used).
func (s *Server) countUse(tool string, rules ...string) {
	s.mem.usage.Count(tool, rules...)
}

// usage answers the gate's usage questions from the counters within
// period.
func (s *Server) usage(period time.Duration) diff.UsageFunc {
	u := s.mem.usage
	return func(tool, kind string) diff.Usage {
		w := u.Usage(tool, kind, period)
		return diff.Usage{Calls: w.Calls, Last: w.Last, Covered: w.Covered}
	}
}

// startContract is what the first candidate is gated against: the newer
// of the state's last published contract and cand's gate.baseline.
func (s *Server) startContract(cand *Generation) (state.Choice, error) {
	var base *lockfile.Lock
	if p := cand.Config.Gate.Baseline; p != "" {
		l, err := lockfile.ReadFile(p)
		if err != nil {
			return state.Choice{}, fmt.Errorf("gate.baseline: %w", err)
		}
		base = l
	}
	if s.opts.State != nil {
		return s.opts.State.Newest(base), nil
	}
	if base == nil {
		return state.Choice{From: state.FromNothing}, nil
	}
	return state.Choice{Contract: base, From: state.FromBaseline, Why: "no state"}, nil
}

// gateAll gates cand against prev and, with gate.transitive N, against
// each of the state's last N published contracts (but live, which prev
// is); findings found more than once are kept once.
func (s *Server) gateAll(prev *lockfile.Lock, live string, cand *Generation, now time.Time) (gateDecision, error) {
	d, err := s.gate(prev, cand, now)
	n := cand.Config.Gate.Transitive
	if err != nil || s.opts.State == nil || n < 2 {
		return d, err
	}
	hist := s.opts.State.History()
	for _, p := range hist[max(0, len(hist)-n):] {
		if p.Fingerprint == live {
			continue
		}
		e, err := s.gate(p.Contract, cand, now)
		if err != nil {
			return d, err
		}
		d.merge(e)
	}
	return d, nil
}

// allowance says what let d's candidate through.
func allowance(d gateDecision) state.Allowance {
	if len(d.Blocking) > 0 {
		return state.Allowance{Kind: state.AllowBreaking}
	}
	var entries []string
	for _, f := range d.Findings {
		if f.AllowedBy != "" {
			entries = append(entries, f.AllowedBy)
		}
	}
	if len(entries) > 0 {
		return state.Allowance{Kind: state.GateAllow, Entries: entries}
	}
	return state.Allowance{Kind: state.AutoSafe}
}

// persist records the publish of g in the state (with its config bundle).
// A state that cannot be written is logged: g is served all the same.
func (s *Server) persist(g *Generation, allowed state.Allowance) {
	if s.opts.State == nil {
		return
	}
	b, err := bundleOf(g.Config)
	if err != nil {
		s.log.Warn("state: cannot copy the config bundle", "error", err)
	}
	rec := state.Record{Contract: g.lock(), Fingerprint: g.Fingerprint, Generation: int64(g.Version), Allowed: allowed, Bundle: b}
	if _, err := s.opts.State.Publish(rec); err != nil {
		s.log.Error("state: cannot record the publish", "version", g.Version, "error", err)
	}
	s.supersede(g.Fingerprint) // the config builds g now
}

// supersede drops the pending candidates other than fp, the one the
// config builds now ("": none, its inputs are gone or invalid), and the
// quarantined candidate being set aside (s.quarantining): stale, they are
// no longer offered for a decision (state.ErrSuperseded).
func (s *Server) supersede(fp string) {
	if s.opts.State == nil {
		return
	}
	var also []string
	if s.quarantining != "" {
		also = append(also, s.quarantining)
	}
	if err := s.opts.State.Supersede(fp, also...); err != nil {
		s.log.Error("state: cannot drop the superseded pending candidates", "error", err)
	}
}

// bundleOf reads cfg's files (the config and its includes, all under the
// config's folder) as a state bundle.
func bundleOf(cfg *serveconfig.Config) (*state.Bundle, error) {
	dir := filepath.Dir(cfg.Source)
	b := &state.Bundle{Files: map[string][]byte{}}
	for _, f := range cfg.Files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("%s is not under the config's folder %s", f, dir)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		b.Files[filepath.ToSlash(rel)] = data
	}
	rel, err := filepath.Rel(dir, cfg.Source)
	if err != nil {
		return nil, err
	}
	b.Config = filepath.ToSlash(rel)
	return b, nil
}

// pend journals the refusal of cand and lists it as pending, in place of
// any candidate pending before (the config went on to cand: they are
// stale). A candidate already pending (the watcher or a restart met the
// same config again) is the same decision: not journalled twice.
func (s *Server) pend(cand *Generation, d gateDecision, against string) {
	if s.opts.State == nil {
		return
	}
	if _, ok := s.opts.State.GetPending(cand.Fingerprint); ok {
		return
	}
	changes := make([]diff.Change, len(d.Blocking))
	for i, f := range d.Blocking {
		changes[i] = f.Change
	}
	err := errors.Join(s.opts.State.Refused(cand.Fingerprint, changes),
		s.opts.State.AddPending(state.Pending{Fingerprint: cand.Fingerprint, Against: against, Findings: changes}))
	if err != nil {
		s.log.Error("state: cannot record the refusal", "candidate", cand.Fingerprint, "error", err)
	}
	s.supersede(cand.Fingerprint)
}

// fallback builds the state's last accepted bundle; nil when the state
// has none. The bundle's folder in the state holds the config and its
// $file includes only: its exec handlers resolve relative programs and
// working folders against the served config's folder, as they did when
// it was accepted.
func (s *Server) fallback() (*Generation, error) {
	if s.opts.State == nil {
		return nil, nil
	}
	path, ok := s.opts.State.LastBundle()
	if !ok {
		return nil, nil
	}
	cfg, err := serveconfig.LoadConfigLimits(path, safefile.Limits{MaxSize: s.opts.MaxFileSize})
	if err != nil {
		return nil, fmt.Errorf("the state's last accepted bundle: %w", err)
	}
	if len(cfg.Upstreams) > 0 {
		return s.upstreamFallback(cfg)
	}
	return buildGeneration(cfg, buildOptions{getenv: s.opts.Getenv, onRelease: s.hooks.onRelease, meters: s.toolMeters, exec: s.exec, handlerDir: s.handlerDir()})
}

// upstreamFallback builds the state's last accepted bundle of a gateway:
// its upstreams serve the tools the state's last contract pinned, calls
// translated to their current lists (every upstream quarantined).
func (s *Server) upstreamFallback(cfg *serveconfig.Config) (*Generation, error) {
	hist := s.opts.State.History()
	if len(hist) == 0 || hist[len(hist)-1].Contract == nil {
		return nil, errors.New("the state's last accepted bundle has upstreams but no contract pinning their tools")
	}
	lists, _, ok := contractLists(cfg, hist[len(hist)-1].Contract.Set)
	if !ok {
		return nil, errors.New("the state's last contract cannot be split by upstream (two upstreams share a prefix)")
	}
	cand, _, err := s.buildCandidate(cfg, false, lists)
	return cand, err
}

// handlerDir is the folder exec handlers of the server's builds resolve
// relative programs against: the served config's folder, also for a
// fallback bundle (a copy in the state); "" when the server has no config
// path (the config's own folder then).
func (s *Server) handlerDir() string {
	if s.opts.ConfigPath == "" {
		return ""
	}
	return filepath.Dir(s.opts.ConfigPath)
}
