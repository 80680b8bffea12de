package serve

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	methodToolsListChanged = "notifications/tools/list_changed"
	// protocolSessionless is the first revision without the initialize
	// handshake; its clients receive list_changed only on a
	// subscriptions/listen stream, which the SDK tracks.
	protocolSessionless = "2026-07-28"
	// triggerToolName is the SDK-side tool replaced to make the SDK notify
	// its subscriptions/listen streams; it is never served (tools/list and
	// tools/call are answered from the live generation).
	triggerToolName = "mcpctl.internal.generation"
)

// notifier sends notifications/tools/list_changed (docs/serve.md#generations-and-the-reload-pipeline step 5).
//
// The go-sdk has no public call to send list_changed on demand (go-sdk
// issue #666) and mutates its own tool set in place, so mcpctl serves tools
// from its generations and notifies sessions itself: a sending middleware
// captures the SDK's underlying sender, and each session gets its own
// short-lived sender goroutine, so a stalled client delays only its own
// notifications and never the reload path. Sessions of the 2026-07-28
// revision subscribe through subscriptions/listen, which only the SDK
// tracks; for them the SDK's own change notification is triggered by
// replacing a hidden tool and let through (asynchronously) by the
// middleware, while the SDK's copies for older sessions are dropped.
//
// A session is notified only after it has sent notifications/initialized; a
// change before that is remembered and sent once it has.
type notifier struct {
	s *Server
	// next is the SDK's sender beneath our middleware.
	next mcp.MethodHandler

	// sessions maps *mcp.ServerSession to *sessionState. Request paths only
	// Load from it (lock-free); writers hold mu for the notification state.
	sessions sync.Map
	// byID maps the Mcp-Session-Id of a session in sessions to it.
	byID   sync.Map
	mu     sync.Mutex
	flight inflight
	// sent counts delivered notifications (as the metric does).
	sent atomic.Int64
}

// sessionState is what the server knows of one session.
type sessionState struct {
	started time.Time
	http    bool
	// listed is the version of the generation this session last listed.
	listed atomic.Uint64
	// pin is the session's pinned generation (--pin-sessions), or nil.
	pin atomic.Pointer[pin]
	// ended: the session is gone (its pin must not outlive it).
	ended atomic.Bool
	// revision is the negotiated protocol revision, once initialize is
	// answered.
	revision atomic.Pointer[string]

	// guarded by notifier.mu
	initialized bool
	pending     bool // a change happened before initialized
	sending     bool // a sender goroutine is running
	again       bool // another change came while sending
	// told is the fingerprint the session was last told of (pin expiry and
	// a publish racing must not tell it twice of one change).
	told string
}

type ourSendKey struct{}

func newNotifier(s *Server) *notifier { return &notifier{s: s} }

// sendingMiddleware is installed once with AddSendingMiddleware.
func (n *notifier) sendingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	n.next = next
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodToolsListChanged || ctx.Value(ourSendKey{}) != nil {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss == nil || !sessionless(ss) {
			return nil, nil // older sessions are notified by changed/initialized
		}
		n.flight.add()
		go func() {
			defer n.flight.done()
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.s.opts.NotifyTimeout)
			defer cancel()
			if _, err := next(ctx, method, req); err == nil {
				n.s.metrics.notifications.Inc()
				n.sent.Add(1)
			}
		}()
		return nil, nil
	}
}

// sessionless reports whether ss speaks the 2026-07-28 revision or later.
func sessionless(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= protocolSessionless
}

// state returns the state of ss, or nil.
func (n *notifier) state(ss *mcp.ServerSession) *sessionState {
	v, ok := n.sessions.Load(ss)
	if !ok {
		return nil
	}
	return v.(*sessionState)
}

// begin records a session that sent initialize, and forgets it when it
// ends (stateless HTTP makes one short session per request).
func (n *notifier) begin(ss *mcp.ServerSession, http bool) {
	if _, loaded := n.sessions.LoadOrStore(ss, &sessionState{started: n.s.opts.Clock.Now(), http: http}); !loaded {
		if id := ss.ID(); id != "" {
			n.byID.Store(id, ss)
		}
		go func() {
			_ = ss.Wait()
			if h := n.s.hooks.sessionEnded; h != nil {
				h()
			}
			n.forget(ss)
		}()
	}
}

// isInitialized reports whether the session of st sent
// notifications/initialized.
func (n *notifier) isInitialized(st *sessionState) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return st.initialized
}

// initialized marks ss initialized and sends a change it missed.
func (n *notifier) initialized(ss *mcp.ServerSession) {
	v, _ := n.sessions.LoadOrStore(ss, &sessionState{started: n.s.opts.Clock.Now()})
	st := v.(*sessionState)
	n.mu.Lock()
	defer n.mu.Unlock()
	st.initialized = true
	if st.pending {
		st.pending = false
		n.queue(ss, st)
	}
}

// changed notifies every connected session of a publish whose canonical
// form changed. It never blocks on a session.
func (n *notifier) changed(g *Generation) {
	if n.s.mcp == nil {
		return
	}
	present := map[*mcp.ServerSession]bool{}
	anySessionless := false
	for ss := range n.s.mcp.Sessions() {
		present[ss] = true
		if sessionless(ss) {
			anySessionless = true
		}
	}
	n.prune(present)
	n.mu.Lock()
	for ss := range present {
		st := n.state(ss)
		if st == nil || sessionless(ss) {
			continue // never sent initialize: it will list the new generation
		}
		if st.pin.Load() != nil || st.told == g.Fingerprint {
			continue // pinned: its list did not change (told when the pin ends)
		}
		st.told = g.Fingerprint
		if !st.initialized {
			st.pending = true
			continue
		}
		n.queue(ss, st)
	}
	n.mu.Unlock()
	if anySessionless {
		n.s.mcp.AddTool(&mcp.Tool{Name: triggerToolName, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
}

// forget drops the state of a session that ended, releasing its pin.
func (n *notifier) forget(ss *mcp.ServerSession) {
	if v, ok := n.sessions.LoadAndDelete(ss); ok {
		n.byID.CompareAndDelete(ss.ID(), ss)
		n.s.forgetPin(ss, v.(*sessionState))
	}
}

// forgetID forgets the session with the given id, which ended.
func (n *notifier) forgetID(id string) {
	if v, ok := n.byID.Load(id); ok {
		n.forget(v.(*mcp.ServerSession))
	}
}

// prune forgets sessions that are no longer connected.
func (n *notifier) prune(present map[*mcp.ServerSession]bool) {
	n.sessions.Range(func(k, _ any) bool {
		if !present[k.(*mcp.ServerSession)] {
			n.forget(k.(*mcp.ServerSession))
		}
		return true
	})
}

// queue starts (or extends) the sender of ss. The caller holds n.mu.
func (n *notifier) queue(ss *mcp.ServerSession, st *sessionState) {
	if st.sending {
		st.again = true
		return
	}
	st.sending = true
	n.flight.add()
	go n.sendLoop(ss, st)
}

func (n *notifier) sendLoop(ss *mcp.ServerSession, st *sessionState) {
	defer n.flight.done()
	for {
		ctx, cancel := context.WithTimeout(context.WithValue(n.s.baseCtx, ourSendKey{}, true), n.s.opts.NotifyTimeout)
		_, err := n.next(ctx, methodToolsListChanged, &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}})
		cancel()
		if err != nil {
			n.s.metrics.notificationFailures.Inc()
			n.s.log.Debug("list_changed not delivered", "session", ss.ID(), "error", err)
		} else {
			n.s.metrics.notifications.Inc()
			n.sent.Add(1)
		}
		n.mu.Lock()
		if st.again && n.s.baseCtx.Err() == nil {
			st.again = false
			n.mu.Unlock()
			continue
		}
		st.sending, st.again = false, false
		n.mu.Unlock()
		return
	}
}

// wait waits for sender goroutines to end (after the base context is
// cancelled they end within NotifyTimeout at most).
func (n *notifier) wait() {
	ctx, cancel := context.WithTimeout(context.Background(), n.s.opts.NotifyTimeout+time.Second)
	defer cancel()
	_ = n.flight.wait(ctx)
}

// inflight counts running work and lets a caller wait for zero. Unlike
// sync.WaitGroup, add may race with wait; add and done are single atomic
// operations (the call path takes no lock).
type inflight struct {
	n    atomic.Int64
	zero chan struct{} // signalled (best effort) when n drops to 0
	once sync.Once
}

func (f *inflight) ch() chan struct{} {
	f.once.Do(func() { f.zero = make(chan struct{}, 1) })
	return f.zero
}

func (f *inflight) add() { f.n.Add(1) }

// addBelow adds one unless the count is limit already (limit <= 0: no
// bound), and reports whether it did: the count never exceeds limit, even
// briefly.
func (f *inflight) addBelow(limit int64) bool {
	if limit <= 0 {
		f.add()
		return true
	}
	for {
		n := f.n.Load()
		if n >= limit {
			return false
		}
		if f.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (f *inflight) done() {
	if f.n.Add(-1) == 0 {
		select {
		case f.ch() <- struct{}{}:
		default:
		}
	}
}

func (f *inflight) count() int { return int(f.n.Load()) }

// wait returns when the count is zero or ctx ends.
func (f *inflight) wait(ctx context.Context) error {
	ch := f.ch()
	for f.n.Load() != 0 {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
