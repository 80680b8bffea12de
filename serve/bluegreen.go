package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/callcheck"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// Blue/green rollouts (docs/serve.md#bluegreen). An upstream with blue:
// and green: sides serves two contracts at once: green's is the live
// generation, blue's a generation of its own built when the rollout
// starts (the blue generation: the same config with every blue/green
// upstream on its blue side).
//
//   - A session (2025-11-25 and earlier, stdio or stateful streamable HTTP)
//     that initializes while newSessions is blue is pinned to the blue
//     generation with the pin machinery of --pin-sessions (pin.go) until
//     it ends or the retirement time (start + retireBlueAfter) passes;
//     then it moves to the live generation with one
//     notifications/tools/list_changed. Other sessions get green.
//   - Clients without sessions (stateless HTTP, the 2026-07-28 revision)
//     list green; their calls are routed by shape (routeByShape): one
//     valid only under blue's accepted schema goes to blue while blue is
//     alive, else green's facades translate it.
//   - At retirement the server lets go of its reference on the blue
//     generation; its last pin or in-flight call releases it, which closes
//     its handlers and so stops blue.

// rollout is the server's running blue/green rollout.
type rollout struct {
	// blue is the blue generation; the server holds one reference on it
	// until retirement, each blue session and in-flight blue call one more.
	blue *Generation
	// key is the rolloutKey of the config that started the rollout.
	key      string
	startAt  time.Time
	retireAt time.Time
	// newSessions is the Side new sessions get (Side as int64).
	newSessions atomic.Int64
	retired     atomic.Bool
	stopped     atomic.Bool
	// calls are the server's counters of calls by Side (rolloutMetrics),
	// base their values when the rollout started.
	calls     [3]*atomic.Int64
	base      [3]int64
	stopTimer func() bool
}

// rolloutMetrics are the blue/green gauges and counters, registered once.
type rolloutMetrics struct {
	once  sync.Once
	calls admin.SideCounts
}

// sideOf is the side g serves in ro: blue for the blue generation, green
// for any other.
func (ro *rollout) sideOf(g *Generation) serveconfig.Side {
	if g == ro.blue {
		return serveconfig.SideBlue
	}
	return serveconfig.SideGreen
}

// alive reports whether blue takes new sessions and shape-routed calls.
func (ro *rollout) alive() bool { return !ro.retired.Load() }

// startRollout starts a blue/green rollout: blue is the blue generation
// (built as a candidate is, from the config with every blue/green upstream
// on its blue side, and not published); the live generation is green. The
// server takes over blue's reference. key is the rolloutKey of the sides.
// A rollout already running is kept: only its newSessions changes, and
// blue is discarded.
func (s *Server) startRollout(blue *Generation, r serveconfig.Rollout, key string) {
	if r.RetireBlueAfter <= 0 {
		r.RetireBlueAfter = serveconfig.DefaultRetireBlueAfter
	}
	if old := s.rollout.Load(); old != nil && old.alive() {
		old.newSessions.Store(int64(sideOrGreen(r.NewSessions)))
		blue.discard()
		return
	}
	s.registerRolloutMetrics()
	now := s.opts.Clock.Now()
	ro := &rollout{blue: blue, key: key, startAt: now, retireAt: now.Add(r.RetireBlueAfter)}
	ro.newSessions.Store(int64(sideOrGreen(r.NewSessions)))
	ro.calls[serveconfig.SideGreen], ro.calls[serveconfig.SideBlue] = &s.rolloutMetrics.calls.Green, &s.rolloutMetrics.calls.Blue
	for _, d := range []serveconfig.Side{serveconfig.SideGreen, serveconfig.SideBlue} {
		ro.base[d] = ro.calls[d].Load()
	}
	if live := s.live.Load(); live != nil && blue.Version == 0 {
		blue.Version = live.Version
	}
	onRelease := blue.onRelease
	blue.onRelease = func(g *Generation) {
		ro.stopped.Store(true)
		s.blueStopped()
		s.log.Info("blue stopped: its last session and call are gone", "generation", g.Version)
		if onRelease != nil {
			onRelease(g)
		}
	}
	ro.stopTimer = s.opts.Clock.AfterFunc(r.RetireBlueAfter, func() { s.retire(ro) })
	s.rollout.Store(ro)
	s.log.Info("blue/green rollout started", "newSessions", sideOrGreen(r.NewSessions).String(), "retireAt", ro.retireAt, "blue", blue.Fingerprint)
}

// buildBlue builds the blue generation from cfg (the config with every
// blue/green upstream on its blue side) as a candidate is built: blue's
// connections opened, its tools listed, schemas compiled, handlers built
// (tools unchanged from the live generation shared with it); neither gated
// nor published.
func (s *Server) buildBlue(cfg *serveconfig.Config) (*Generation, error) {
	conns, keys, err := s.upstreamConns(cfg, false)
	if err != nil {
		return nil, err
	}
	ups := make([]upstreamInput, 0, len(cfg.Upstreams))
	for _, uc := range cfg.Upstreams {
		ups = append(ups, upstreamInput{cfg: uc, key: keys[uc.Name], served: conns[uc.Name].Tools()})
	}
	full, inputs := withUpstreams(cfg, ups)
	g, err := buildGeneration(full, buildOptions{getenv: s.opts.Getenv, onRelease: s.hooks.onRelease, meters: s.toolMeters, prev: s.live.Load(), exec: s.exec, upstreams: conns})
	if g != nil {
		g.inputs = inputs
	}
	return g, err
}

// blueUsesConn reports whether blue, until it stops, forwards over the
// upstream connection key (pruneUpstreams keeps it open).
func (s *Server) blueUsesConn(key string) bool {
	ro := s.rollout.Load()
	return ro != nil && !ro.stopped.Load() && ro.blue.usesConn(key)
}

// usesConn reports whether one of g's tools forwards over the connection
// key.
func (g *Generation) usesConn(key string) bool {
	return slices.Contains(g.upstreamKeys, key)
}

// blueStopped closes blue's upstream connections once blue's last
// session and call are gone (in the background: the last release may be
// on a call's path).
func (s *Server) blueStopped() {
	s.gw.mu.Lock()
	defer s.gw.mu.Unlock()
	if s.gw.closed {
		return
	}
	s.gw.reloads.Add(1)
	go func() {
		defer s.gw.reloads.Done()
		s.pruneUpstreams()
	}()
}

// withBlue builds the blue generation of cand, built from cfg, when cfg
// has a blue/green upstream and no rollout is running (it starts when
// cand is published).
func (s *Server) withBlue(cfg *serveconfig.Config, cand *Generation) error {
	if !cfg.HasRollout() {
		return nil
	}
	if ro := s.rollout.Load(); ro != nil && (ro.alive() || ro.key == rolloutKey(cfg)) {
		return nil // running, or these sides were rolled out already
	}
	blue, err := s.buildBlue(cfg.OnSide(serveconfig.SideBlue))
	if err != nil {
		return onBlueSide(err)
	}
	cand.blue = blue
	return nil
}

// onBlueSide words the errors of building the blue generation (joined
// located errors) as the blue side's, each still located.
func onBlueSide(err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		var ie *toolset.InputError
		if errors.As(e, &ie) {
			c := *ie
			c.Msg = "blue side: " + c.Msg
			out[i] = &c
			continue
		}
		out[i] = fmt.Errorf("blue side: %w", e)
	}
	return errors.Join(out...)
}

// rolloutKey identifies the sides of cfg's blue/green upstreams: a
// rollout of the same sides is not started again once retired.
func rolloutKey(cfg *serveconfig.Config) string {
	var sides []any
	for _, u := range cfg.Upstreams {
		if u.HasRollout() {
			sides = append(sides, u.Name, u.Blue, u.Green)
		}
	}
	b, _ := json.Marshal(sides)
	return string(b)
}

// beginRollout runs as cand is published over old (nil at start, the
// caller holds pubMu): it starts the rollout of cand's config with the
// blue generation built with cand, or gives a running rollout cand's
// newSessions. The sessions connected when a rollout starts are put on
// blue: they keep the contract they were using while blue lives.
func (s *Server) beginRollout(old, cand *Generation) {
	blue := cand.blue
	cand.blue = nil
	r, ok := cand.Config.Rollout()
	if ro := s.rollout.Load(); ok && ro != nil && ro.alive() {
		s.setNewSessions(r.NewSessions)
	} else if ok && blue != nil {
		// Blue lists under the version of the contract its sessions keep:
		// old's, or at start the first generation's.
		blue.Version = cand.Version
		if old != nil {
			blue.Version = old.Version
		}
		s.startRollout(blue, r, rolloutKey(cand.Config))
		blue = nil
		if old != nil {
			s.moveToBlue(old)
		}
	}
	if blue != nil {
		blue.discard()
	}
}

// endRollout retires blue when the config just published (cand) has no
// blue/green upstream any more.
func (s *Server) endRollout(cand *Generation) {
	if ro := s.rollout.Load(); ro != nil && ro.alive() && !cand.Config.HasRollout() {
		s.retire(ro)
	}
}

// moveToBlue pins every session (with a lasting connection, not pinned)
// to the blue generation as a rollout starts over old; a session is told
// its list changed when blue's contract is not old's.
func (s *Server) moveToBlue(old *Generation) {
	ro := s.rollout.Load()
	s.notifier.sessions.Range(func(k, v any) bool {
		ss, st := k.(*mcp.ServerSession), v.(*sessionState)
		if !pinnable(ss, st) || st.pin.Load() != nil || !ro.blue.acquire() {
			return true
		}
		if !s.pinTo(ss, st, &pin{gen: ro.blue, expires: ro.retireAt, blue: true}) || old.Fingerprint == ro.blue.Fingerprint {
			return true
		}
		s.notifier.mu.Lock()
		if st.initialized {
			s.notifier.queue(ss, st)
		} else {
			st.pending = true
		}
		s.notifier.mu.Unlock()
		return true
	})
}

// setNewSessions changes the side new sessions get (a reload of the
// rollout block).
func (s *Server) setNewSessions(d serveconfig.Side) {
	if ro := s.rollout.Load(); ro != nil {
		ro.newSessions.Store(int64(sideOrGreen(d)))
	}
}

func sideOrGreen(d serveconfig.Side) serveconfig.Side {
	if d == serveconfig.SideBlue {
		return serveconfig.SideBlue
	}
	return serveconfig.SideGreen
}

// assignSide puts ss, which has just answered initialize, on blue when
// the rollout gives new sessions blue: it is pinned to the blue
// generation until retirement.
func (s *Server) assignSide(ss *mcp.ServerSession) {
	ro := s.rollout.Load()
	if ro == nil || serveconfig.Side(ro.newSessions.Load()) != serveconfig.SideBlue || !ro.alive() {
		return
	}
	st := s.notifier.state(ss)
	if st == nil || !pinnable(ss, st) || st.pin.Load() != nil || !ro.blue.acquire() {
		return
	}
	p := &pin{gen: ro.blue, expires: ro.retireAt, blue: true}
	if s.pinTo(ss, st, p) && !ro.alive() {
		s.unpin(ss, st, p, false) // retired meanwhile: it never saw blue's list
	}
}

// retire retires the blue of ro: no new session or shape-routed call goes
// to it, every blue session moves to green with one list_changed, and the
// server lets go of its reference (blue stops once its last call is
// done). Retiring twice does nothing.
func (s *Server) retire(ro *rollout) {
	if ro.retired.Swap(true) {
		return
	}
	ro.stopTimer()
	s.log.Info("blue retired: its sessions move to green", "generation", ro.blue.Version)
	s.notifier.sessions.Range(func(k, v any) bool {
		st := v.(*sessionState)
		if p := st.pin.Load(); p != nil && p.blue {
			s.unpin(k.(*mcp.ServerSession), st, p, true)
		}
		return true
	})
	ro.blue.release()
}

// stopRollout retires blue without notifying (at Close).
func (s *Server) stopRollout() {
	ro := s.rollout.Load()
	if ro == nil || ro.retired.Swap(true) {
		return
	}
	ro.stopTimer()
	ro.blue.release()
}

// shapeRoute returns the blue generation (with a call reference taken)
// when a call of ss on the live generation g goes to blue by
// its shape (routeByShape): ss sees green's list (no session, or
// sessionless), blue is alive and only blue accepts the arguments as
// sent. Otherwise it returns nil, and the call stays on g.
func (s *Server) shapeRoute(ss *mcp.ServerSession, g *Generation, name string, raw json.RawMessage) *Generation {
	ro := s.rollout.Load()
	if ro == nil || !ro.alive() || g == ro.blue {
		return nil
	}
	if st := s.notifier.state(ss); st != nil && pinnable(ss, st) {
		return nil // a session: it listed its own side
	}
	bt := ro.blue.tools[name]
	if bt == nil {
		return nil
	}
	args, msg := bt.parseArguments(raw)
	if msg != "" {
		return nil
	}
	var green *liveTool
	if green = g.tools[name]; green == nil {
		if a := g.aliases[name]; a != nil {
			green = a.target
		}
	}
	var gc *callcheck.Tool
	if green != nil {
		gc = green.check
	}
	d, _ := routeByShape(gc, bt.check, true, facade.Call{Tool: name, Arguments: schema.Instance(&args).(map[string]any)}, nil)
	if d != serveconfig.SideBlue || !ro.blue.acquire() {
		return nil
	}
	return ro.blue
}

// countSide counts a call taken by g for its rollout side.
func (s *Server) countSide(g *Generation) {
	if ro := s.rollout.Load(); ro != nil {
		d := ro.sideOf(g)
		ro.calls[d].Add(1)
	}
}

// RolloutStatus is the blue/green part of /status (admin.RolloutStatus).
type RolloutStatus = admin.RolloutStatus

// rolloutStatus returns the rollout's status, nil without a rollout.
func (s *Server) rolloutStatus(sessions int) *RolloutStatus {
	ro := s.rollout.Load()
	if ro == nil {
		return nil
	}
	blue := int(s.bluePinned.Load())
	st := &RolloutStatus{
		NewSessions: serveconfig.Side(ro.newSessions.Load()).String(), StartedAt: ro.startAt, RetireAt: ro.retireAt,
		Blue: ro.blueState(), BlueFingerprint: ro.blue.Fingerprint,
		Sessions: map[string]int{"blue": blue, "green": max(sessions-blue, 0)},
		Calls:    map[string]int64{"blue": ro.callsSince(serveconfig.SideBlue), "green": ro.callsSince(serveconfig.SideGreen)},
	}
	return st
}

// callsSince is the calls side d took since the rollout started.
func (ro *rollout) callsSince(d serveconfig.Side) int64 { return ro.calls[d].Load() - ro.base[d] }

func (ro *rollout) blueState() string {
	switch {
	case ro.stopped.Load():
		return "stopped"
	case ro.retired.Load():
		return "retired"
	}
	return "alive"
}

// registerRolloutMetrics registers the blue/green metrics (once).
func (s *Server) registerRolloutMetrics() {
	m := &s.rolloutMetrics
	m.once.Do(func() {
		sessions := func(d serveconfig.Side) prometheus.Collector {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "mcpctl_serve_rollout_sessions", Help: "Sessions on each side of a blue/green rollout.",
				ConstLabels: prometheus.Labels{"side": d.String()},
			}, func() float64 {
				if st := s.rolloutStatus(s.sessionCount()); st != nil {
					return float64(st.Sessions[d.String()])
				}
				return 0
			})
		}
		alive := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpctl_serve_rollout_blue_alive", Help: "1 while blue takes new sessions and shape-routed calls, else 0.",
		}, func() float64 {
			if ro := s.rollout.Load(); ro != nil && ro.alive() {
				return 1
			}
			return 0
		})
		s.metrics.reg.MustRegister(&m.calls, sessions(serveconfig.SideBlue), sessions(serveconfig.SideGreen), alive)
	})
}

// sessionCount counts the sessions that have a lasting connection (not
// stateless HTTP requests or sessionless clients).
func (s *Server) sessionCount() int {
	n := 0
	s.notifier.sessions.Range(func(k, v any) bool {
		if pinnable(k.(*mcp.ServerSession), v.(*sessionState)) {
			n++
		}
		return true
	})
	return n
}
