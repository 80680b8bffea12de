package serve

import (
	"github.com/mcpctl/mcpctl/upstream"

	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpctl/mcpctl/state"
)

// Status is the JSON document of GET /status (and `mcpctl status`).
type Status struct {
	Config        string    `json:"config"`
	Version       uint64    `json:"version"`
	Fingerprint   string    `json:"fingerprint"`
	PublishedAt   time.Time `json:"publishedAt"`
	Tools         []string  `json:"tools"`
	Ready         bool      `json:"ready"`
	AllowBreaking bool      `json:"allowBreaking"`
	// LastReload is the most recent reload's result.
	LastReload *ReloadResult `json:"lastReload"`
	// Refused are the most recent refused candidates, oldest first.
	Refused  []ReloadResult `json:"refused"`
	Sessions SessionStatus  `json:"sessions"`
	// Calls counts tools/call per tool and outcome (ok, error, invalid).
	Calls map[string]CallCounts `json:"calls"`
	// Facades counts facade translations per tool and facade rule.
	Facades  map[string]map[string]int64 `json:"facades"`
	InFlight int                         `json:"inFlight"`
	// Pending are the refused candidates waiting for an operator's
	// decision (serve --state; mcpctl approve or reject), oldest first.
	Pending []state.Pending `json:"pending"`
	// Upstreams are the gateway's upstreams (docs/serve.md#gateway): state
	// (connected, restarting, quarantined, closed), restarts, tools.
	Upstreams []upstream.Status `json:"upstreams,omitempty"`
	// Rollout is the blue/green rollout (docs/serve.md#bluegreen), when
	// one started.
	Rollout *RolloutStatus `json:"rollout,omitempty"`
}

// SessionStatus describes connected sessions.
type SessionStatus struct {
	Total       int `json:"total"`
	Initialized int `json:"initialized"`
	// ByGeneration counts sessions by the version of the generation they
	// last listed ("0": not listed yet); a pinned session counts under the
	// version it is pinned to.
	ByGeneration map[string]int `json:"byGeneration"`
	// Pinned counts pinned sessions (--pin-sessions) by the version they
	// are pinned to; empty when none is.
	Pinned map[string]int `json:"pinned,omitempty"`
	// HTTPOpen counts stateful HTTP sessions (and requests that may open
	// one) against Max, the cap (--max-sessions; 0 before an HTTP
	// listener); Refused counts requests refused at the cap. IdleTimeout
	// is --session-timeout ("1800s").
	HTTPOpen    int    `json:"httpOpen"`
	Max         int    `json:"max"`
	Refused     int64  `json:"refused"`
	IdleTimeout string `json:"idleTimeout,omitempty"`
}

// CallCounts are one tool's call outcomes.
type CallCounts struct {
	OK      int64 `json:"ok"`
	Error   int64 `json:"error"`
	Invalid int64 `json:"invalid"`
}

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
		Calls:         map[string]CallCounts{},
		Facades:       map[string]map[string]int64{},
		Sessions:      SessionStatus{ByGeneration: map[string]int{}},
		InFlight:      s.inflight.count(),
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

	if s.mcp != nil {
		present := map[*mcp.ServerSession]bool{}
		for ss := range s.mcp.Sessions() {
			present[ss] = true
		}
		s.notifier.prune(present)
		for ss := range present {
			if sessionless(ss) {
				continue // one request each; not a session
			}
			st.Sessions.Total++
			v := uint64(0)
			if ss := s.notifier.state(ss); ss != nil {
				v = ss.listed.Load()
				if pv, ok := s.pinnedVersion(ss); ok {
					v = pv
					if st.Sessions.Pinned == nil {
						st.Sessions.Pinned = map[string]int{}
					}
					st.Sessions.Pinned[versionLabel(pv)]++
				}
				s.notifier.mu.Lock()
				if ss.initialized {
					st.Sessions.Initialized++
				}
				s.notifier.mu.Unlock()
			}
			st.Sessions.ByGeneration[versionLabel(v)]++
		}
	}
	s.sessionLimits(&st.Sessions)
	st.Rollout = s.rolloutStatus(s.sessionCount())
	s.calls.tools.Range(func(k, v any) bool {
		c := v.(*toolCounts)
		st.Calls[k.(string)] = CallCounts{OK: c.ok.Load(), Error: c.err.Load(), Invalid: c.invalid.Load()}
		return true
	})
	s.calls.facades.Range(func(k, v any) bool {
		tool, rule, _ := strings.Cut(k.(string), "\x00")
		if st.Facades[tool] == nil {
			st.Facades[tool] = map[string]int64{}
		}
		st.Facades[tool][rule] = v.(*atomic.Int64).Load()
		return true
	})
	slices.Sort(st.Tools)
	return st
}

// AdminHandler serves the admin endpoints (docs/serve.md#transports-admin-security): GET /healthz,
// GET /readyz (200 once the first generation is published and the
// transports are up, else 503), GET /status (Status as JSON), GET /metrics
// (Prometheus text format) and POST /reload (runs the reload pipeline and
// answers its ReloadResult: 200 published, unchanged or quarantined, 409
// refused or superseded), POST /approve and POST /reject (a Decision: see Approve
// and Reject; docs/serve.md#state).
//
// /healthz and /readyz answer any request: they tell nothing, and a
// kubelet probes them with the pod's address as Host. Every other request
// must name an admissible host (adminHost: localhost or an IP literal, any
// port) and, when it carries an Origin, come from that same origin, else
// 403: a page whose name rebinds to the listener's address (DNS
// rebinding) or any other page a browser shows cannot read or reload.
// With o.Token set, /status, /metrics and the POSTs need it as a bearer
// token (401 otherwise): they tell the config's path, its tools and call
// counts to anyone who reaches the port.
func (s *Server) AdminHandler(o AdminOptions) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", s.probes())
	mux.Handle("GET /readyz", s.probes())
	mux.Handle("/", s.adminOriginCheck(s.privateAdmin(o)))
	return mux
}

// probes serves GET /healthz and GET /readyz (200 once the first
// generation is published and the transports are up, else 503).
func (s *Server) probes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !s.ready.Load() || s.live.Load() == nil || s.draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}

// privateAdmin serves the endpoints behind the token: /status, /metrics,
// POST /reload, /approve and /reject.
func (s *Server) privateAdmin(o AdminOptions) http.Handler {
	mux := http.NewServeMux()
	private := func(h http.Handler) http.Handler { return requireToken(o.Token, h) }
	mux.Handle("GET /status", private(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Status())
	})))
	mux.Handle("GET /metrics", private(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	mux.Handle("POST /reload", private(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := s.Reload(r.Context(), "admin")
		code := http.StatusOK
		if res.Result == ResultRefused || res.Result == ResultSuperseded {
			code = http.StatusConflict
		}
		writeJSON(w, code, res)
	})))
	mux.Handle("POST /approve", private(s.decisionHandler(true)))
	mux.Handle("POST /reject", private(s.decisionHandler(false)))
	return mux
}

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

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
