package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// Session limits of stateful streamable HTTP (see HTTPOptions).
const (
	// DefaultSessionTimeout closes a session idle that long.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxSessions bounds the sessions open at once: about 18 KiB and
	// two goroutines each while idle.
	DefaultMaxSessions = 10000
)

// CodeTooManySessions is the JSON-RPC error code (in the range JSON-RPC 2.0
// §5.1 leaves to servers) of an HTTP request refused because the server
// holds HTTPOptions.MaxSessions sessions.
const CodeTooManySessions = -32001

// sessionSlots counts stateful HTTP sessions against their cap: a request
// that may create a session (a POST without Mcp-Session-Id) takes a slot,
// which it keeps for as long as the session it created lives.
type sessionSlots struct {
	mu      sync.Mutex
	max     int
	timeout time.Duration
	used    int
	refused int64
}

// configure sets the cap and idle timeout (for /status and metrics).
func (l *sessionSlots) configure(max int, timeout time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max, l.timeout = max, timeout
}

func (l *sessionSlots) acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.used >= l.max {
		l.refused++
		return false
	}
	l.used++
	return true
}

func (l *sessionSlots) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.used--
}

func (l *sessionSlots) snapshot() (used, max int, timeout time.Duration, refused int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used, l.max, l.timeout, l.refused
}

// serveNewSession serves a request that may create a stateful session,
// within the cap: over it, 503 with a JSON-RPC error and Retry-After.
func (s *Server) serveNewSession(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if !s.slots.acquire() {
		_, max, _, _ := s.slots.snapshot()
		s.log.Warn("HTTP session refused: the server holds its maximum of sessions", "max", max, "remote", r.RemoteAddr)
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
			"code": CodeTooManySessions, "message": fmt.Sprintf("too many sessions: this server holds at most %d; retry later", max)}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(b)
		return
	}
	h.ServeHTTP(w, r)
	id := w.Header().Get("Mcp-Session-Id")
	if id == "" {
		s.slots.release()
		return
	}
	go func() {
		defer s.slots.release()
		if ss := s.findSession(id); ss != nil {
			_ = ss.Wait()
		}
	}()
}

// findSession returns the session with the given id, or nil.
func (s *Server) findSession(id string) *mcp.ServerSession {
	for ss := range s.mcp.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// registerSessionMetrics exports the session gauges.
func (s *Server) registerSessionMetrics() {
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	s.metrics.reg.MustRegister(
		gauge("mcpctl_serve_http_sessions", "Stateful HTTP sessions open (and requests that may open one).", func() float64 {
			used, _, _, _ := s.slots.snapshot()
			return float64(used)
		}),
		gauge("mcpctl_serve_http_sessions_max", "The most stateful HTTP sessions open at once (--max-sessions; 0: no HTTP listener yet).", func() float64 {
			_, max, _, _ := s.slots.snapshot()
			return float64(max)
		}),
		gauge("mcpctl_serve_http_session_timeout_seconds", "Idle time after which a stateful HTTP session is closed (--session-timeout).", func() float64 {
			_, _, t, _ := s.slots.snapshot()
			return t.Seconds()
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mcpctl_serve_http_sessions_refused_total",
			Help: "Requests refused (503) because the server held --max-sessions sessions."}, func() float64 {
			_, _, _, n := s.slots.snapshot()
			return float64(n)
		}),
	)
}

// sessionLimits fills the limits part of SessionStatus.
func (s *Server) sessionLimits(st *SessionStatus) {
	used, max, timeout, refused := s.slots.snapshot()
	st.HTTPOpen, st.Max, st.Refused = used, max, refused
	if timeout > 0 {
		st.IdleTimeout = strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64) + "s"
	}
}
