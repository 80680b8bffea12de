package serve

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// Session pinning (docs/serve.md#active-conversations-pinning, --pin-sessions): a session of a revision
// that has sessions (2025-11-25 and earlier, over stdio or stateful
// streamable HTTP) sees the generation that was live when it initialized,
// for tools/list and tools/call, until it ends or Options.PinTTL passes.
// Publishes do not notify a pinned session (its list did not change). When
// the TTL passes — noticed on the session's next request, or by a timer
// for an idle session — the pin is released, the session moves to the live
// generation and gets one notifications/tools/list_changed if the live
// fingerprint differs from the pinned one. Stateless HTTP requests and
// 2026-07-28 (sessionless) clients are never pinned: that revision forbids
// per-connection tool lists, and facades carry compatibility there.
//
// Blue/green rollouts (bluegreen.go) pin a session to the blue generation
// the same way, with the retirement time as expiry (pin.blue).
//
// A pin holds a reference on its generation, so the generation (and the
// handlers only it uses) stays alive until the last pin and the last call
// let go; unchanged tools are shared between generations (share.go).

// DefaultPinTTL is how long a session stays pinned when Options.PinTTL is 0.
const DefaultPinTTL = time.Hour

// pin is one session's pinned generation.
type pin struct {
	gen     *Generation
	expires time.Time // on the Options.Clock clock
	// blue: the session is on the blue side of a blue/green rollout
	// (bluegreen.go), pinned to the blue generation until retirement.
	blue bool

	mu   sync.Mutex
	stop func() bool // stops the expiry timer; nil once stopped
}

// stopTimer stops the expiry timer (idempotent).
func (p *pin) stopTimer() {
	p.mu.Lock()
	stop := p.stop
	p.stop = nil
	p.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// registerPinMetrics adds the gauge of pinned sessions.
func (s *Server) registerPinMetrics() {
	s.metrics.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mcpctl_serve_pinned_sessions",
		Help: "Sessions pinned to the generation live when they initialized (--pin-sessions).",
	}, func() float64 { return float64(s.pinned.Load()) }))
}

// pinnable reports whether ss is a session that can be pinned: it has
// sessions in its protocol revision and a lasting connection (stdio, or
// stateful streamable HTTP, whose sessions have an id).
func pinnable(ss *mcp.ServerSession, st *sessionState) bool {
	if sessionless(ss) {
		return false
	}
	return !st.http || ss.ID() != ""
}

// pinSession pins ss, which has just answered initialize, to the live
// generation (with a reference taken) when pinning is on.
func (s *Server) pinSession(ss *mcp.ServerSession) {
	if !s.opts.PinSessions {
		return
	}
	st := s.notifier.state(ss)
	if st == nil || !pinnable(ss, st) || st.pin.Load() != nil {
		return
	}
	s.pinTo(ss, st, &pin{gen: s.acquireLive(), expires: s.opts.Clock.Now().Add(s.opts.PinTTL)})
}

// pinTo installs p (whose generation reference the caller took) as the
// pin of ss, with its expiry timer; it reports false, releasing the
// reference, when ss already has a pin.
func (s *Server) pinTo(ss *mcp.ServerSession, st *sessionState, p *pin) bool {
	g := p.gen
	if !st.pin.CompareAndSwap(nil, p) {
		g.release()
		return false
	}
	s.pinCount(p).Add(1)
	s.notifier.mu.Lock()
	st.pending = false // a change before the pin: the pin already has it
	st.told = g.Fingerprint
	s.notifier.mu.Unlock()
	p.mu.Lock()
	p.stop = s.opts.Clock.AfterFunc(p.expires.Sub(s.opts.Clock.Now()), func() { s.unpin(ss, st, p, true) })
	p.mu.Unlock()
	if st.ended.Load() {
		// The session ended while it was being pinned.
		s.unpin(ss, st, p, false)
	}
	s.log.Debug("session pinned", "session", ss.ID(), "generation", g.Version, "until", p.expires, "blue", p.blue)
	return true
}

// pinCount is the counter of pins like p: blue sessions, or --pin-sessions.
func (s *Server) pinCount(p *pin) *atomic.Int64 {
	if p.blue {
		return &s.bluePinned
	}
	return &s.pinned
}

// unpin releases p if it is still the pin of ss. With notify, the session
// is told its list changed when the live fingerprint differs from the
// pinned one (or told once it has initialized).
func (s *Server) unpin(ss *mcp.ServerSession, st *sessionState, p *pin, notify bool) {
	if !st.pin.CompareAndSwap(p, nil) {
		return
	}
	s.pinCount(p).Add(-1)
	p.stopTimer()
	if notify && s.baseCtx.Err() == nil {
		n := s.notifier
		n.mu.Lock()
		if fp := s.live.Load().Fingerprint; fp != p.gen.Fingerprint && fp != st.told && !st.ended.Load() {
			st.told = fp
			if st.initialized {
				n.queue(ss, st)
			} else {
				st.pending = true
			}
		}
		n.mu.Unlock()
		s.log.Debug("session pin expired; the session moves to the live generation", "session", ss.ID(), "generation", p.gen.Version)
	}
	p.gen.release()
}

// expireDue releases the pin of ss when its TTL has passed on the
// Options.Clock (the lazy check on each request of the session).
func (s *Server) expireDue(ss *mcp.ServerSession) {
	st := s.notifier.state(ss)
	if st == nil {
		return
	}
	if p := st.pin.Load(); p != nil && !s.opts.Clock.Now().Before(p.expires) {
		s.unpin(ss, st, p, true)
	}
}

// sessionGen returns the generation ss sees for tools/list: its pin, or
// the live one. The result is only read (no reference is taken).
func (s *Server) sessionGen(ss *mcp.ServerSession) *Generation {
	if s.pinning() {
		if st := s.notifier.state(ss); st != nil {
			if p := st.pin.Load(); p != nil {
				return p.gen
			}
		}
	}
	return s.live.Load()
}

// acquireFor returns the generation a call of ss uses, with a call
// reference taken: its pin while it holds, else the live one.
func (s *Server) acquireFor(ss *mcp.ServerSession) *Generation {
	if s.pinning() && ss != nil {
		if st := s.notifier.state(ss); st != nil {
			if p := st.pin.Load(); p != nil && p.gen.acquire() {
				return p.gen
			}
		}
	}
	return s.acquireLive()
}

// pinning reports whether sessions may be pinned: --pin-sessions, or a
// blue/green rollout was started (bluegreen.go).
func (s *Server) pinning() bool {
	return s.opts.PinSessions || s.rollout.Load() != nil
}

// forgetPin marks the session of st ended and releases its pin.
func (s *Server) forgetPin(ss *mcp.ServerSession, st *sessionState) {
	st.ended.Store(true)
	if p := st.pin.Load(); p != nil {
		s.unpin(ss, st, p, false)
	}
}

// unpinAll releases every pin without notifying (at Close).
func (s *Server) unpinAll() {
	s.notifier.sessions.Range(func(k, v any) bool {
		st := v.(*sessionState)
		if p := st.pin.Load(); p != nil {
			s.unpin(k.(*mcp.ServerSession), st, p, false)
		}
		return true
	})
}

// pinnedVersion returns the version st is pinned to, if it is pinned.
func (s *Server) pinnedVersion(st *sessionState) (uint64, bool) {
	if p := st.pin.Load(); p != nil {
		return p.gen.Version, true
	}
	return 0, false
}
