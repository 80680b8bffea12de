package serve

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/admin"
)

// The /status document and its parts (package admin owns the contract).
type (
	Status        = admin.Status
	SessionStatus = admin.SessionStatus
	CallCounts    = admin.CallCounts
)

// Status returns the server's status.
func (s *Server) Status() Status {
	g := s.live.Load()
	st := Status{
		Config:        s.opts.ConfigPath,
		Version:       g.Version,
		Fingerprint:   g.Fingerprint,
		PublishedAt:   g.PublishedAt,
		Tools:         g.Tools(),
		Ready:         s.ready.Load(),
		AllowBreaking: s.opts.AllowBreaking,
		Refused:       []ReloadResult{},
		Calls:         s.metrics.calls.Calls(),
		Facades:       s.metrics.calls.Facades(),
		InFlight:      s.inflight.count(),
		MaxInFlight:   max(s.opts.MaxCalls, 0),
		RefusedAtMax:  s.callsRefused.Load(),
		Pending:       s.Pending(),
		Upstreams:     s.upstreamStatus(),
	}
	s.statusMu.Lock()
	if s.lastReload != nil {
		r := *s.lastReload
		st.LastReload = &r
	}
	st.Refused = append(st.Refused, s.refused...)
	s.statusMu.Unlock()

	st.Sessions = s.sessionStatus()
	s.sessionLimits(&st.Sessions)
	st.Rollout = s.rolloutStatus(s.sessionCount())
	slices.Sort(st.Tools)
	return st
}

// sessionStatus counts the sessions (not sessionless requests): in total,
// initialized, by the version they last listed or are pinned to, and
// pinned.
func (s *Server) sessionStatus() SessionStatus {
	st := SessionStatus{ByGeneration: map[string]int{}}
	if s.mcp == nil {
		return st
	}
	present := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		present[ss] = true
	}
	s.notifier.prune(present)
	for ss := range present {
		if sessionless(ss) {
			continue // one request each; not a session
		}
		st.Total++
		v := uint64(0)
		if ss := s.notifier.state(ss); ss != nil {
			v = ss.listed.Load()
			if pv, ok := s.pinnedVersion(ss); ok {
				v = pv
				if st.Pinned == nil {
					st.Pinned = map[string]int{}
				}
				st.Pinned[versionLabel(pv)]++
			}
			s.notifier.mu.Lock()
			if ss.initialized {
				st.Initialized++
			}
			s.notifier.mu.Unlock()
		}
		st.ByGeneration[versionLabel(v)]++
	}
	return st
}

// AdminHandler serves the admin endpoints (admin.Handler;
// docs/serve.md#transports-admin-security): GET /healthz and GET /readyz
// to any request, and GET /status, GET /metrics, POST /reload, POST
// /approve and POST /reject behind two checks.
//
// Every request but the probes must name an admissible host (adminHost:
// localhost or an IP literal, any port) and, when it carries an Origin,
// come from that same origin, else 403: a page whose name rebinds to the
// listener's address (DNS rebinding) or any other page a browser shows
// cannot read or reload. With o.Token set, /status, /metrics and the POSTs
// need it as a bearer token (401 otherwise): they tell the config's path,
// its tools and call counts to anyone who reaches the port.
func (s *Server) AdminHandler(o AdminOptions) http.Handler {
	return admin.Handler(s, admin.Guards{Check: s.adminOriginCheck, Private: func(h http.Handler) http.Handler {
		return requireToken(o.Token, h)
	}})
}

// Ready reports whether /readyz answers 200: the first generation is
// published, the transports are up (SetReady) and the server is not
// draining.
func (s *Server) Ready() bool {
	return s.ready.Load() && s.live.Load() != nil && !s.draining.Load()
}

// Metrics gathers the server's Prometheus metrics (its own registry).
func (s *Server) Metrics() prometheus.Gatherer { return s.metrics.reg }

// AdminOptions configures AdminHandler.
type AdminOptions struct {
	// Token, when set, is the bearer token /status, /metrics and POST
	// /reload need (compared in constant time; --admin-token-file). An
	// admin listener beyond loopback needs one (ErrAdminToken).
	Token string
}

// ErrAdminToken is Run's error for an admin listener beyond loopback
// without AdminOptions.Token: /status and POST /reload would be open to
// the network.
var ErrAdminToken = errors.New("an admin listener beyond loopback needs a bearer token (--admin-token-file)")

// adminOriginCheck refuses (403) a request to the admin listener whose
// Host is not admissible (adminHost), or that another origin sent
// (originGuard with sameOrigin).
func (s *Server) adminOriginCheck(h http.Handler) http.Handler {
	sameOriginOnly := s.originGuard(sameOrigin, nil, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !adminHost(r.Host) {
			s.log.Warn("admin request for a host name other than localhost refused (DNS rebinding?)", "host", sanitizeHost(r.Host), "remote", r.RemoteAddr)
			refuse(w, "Forbidden: the admin listener answers only for localhost or an IP address", http.StatusForbidden)
			return
		}
		sameOriginOnly.ServeHTTP(w, r)
	})
}

// adminHost reports whether a Host header (any port) may reach the admin
// endpoints beyond the probes: localhost or an IP literal (127.0.0.1, a
// pod's address). Any other name is refused: a DNS-rebinding page sends
// its own name, and an IP literal involves no DNS answer to rebind.
// go-sdk's Host check (mcp/streamable.go:321) is not exported, and
// applies only to a connection to a loopback address, so a listener on a
// pod's address would have none.
func adminHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.EqualFold(host, "localhost") || net.ParseIP(host) != nil
}

// sanitizeHost cuts a Host header for logs.
func sanitizeHost(h string) string {
	if len(h) > 100 {
		return h[:100] + "…"
	}
	return strconv.Quote(h)
}
