package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpctl/mcpctl/state"
)

// fakeServer answers the admin endpoints with fixed values.
type fakeServer struct {
	ready  bool
	reload string
	err    error
}

func (f *fakeServer) Status() Status { return Status{Config: "serve.yaml", Version: 3} }
func (f *fakeServer) Ready() bool    { return f.ready }
func (f *fakeServer) Reload(context.Context, string) ReloadResult {
	return ReloadResult{Trigger: "admin", Result: f.reload}
}
func (f *fakeServer) Approve(context.Context, Decision) (ReloadResult, error) {
	return ReloadResult{Trigger: "approve", Result: ResultPublished}, f.err
}
func (f *fakeServer) Reject(Decision) error { return f.err }
func (f *fakeServer) Metrics() prometheus.Gatherer {
	reg := prometheus.NewRegistry()
	c := &Counters{}
	c.Tool("search").OK.Add(2)
	reg.MustRegister(c)
	return reg
}

// TestHandlerAnswers: each endpoint's status code and body for what the
// server answers, a decision's error mapped to its HTTP status by kind.
func TestHandlerAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path, body string
		srv                      fakeServer
		code                     int
		has                      string
	}{
		{"ready", "GET", "/readyz", "", fakeServer{ready: true}, 200, "ready\n"},
		{"not ready", "GET", "/readyz", "", fakeServer{}, 503, "not ready\n"},
		{"healthz", "GET", "/healthz", "", fakeServer{}, 200, "ok\n"},
		{"status", "GET", "/status", "", fakeServer{}, 200, `"config": "serve.yaml"`},
		{"metrics", "GET", "/metrics", "", fakeServer{}, 200, `mcpctl_serve_calls_total{outcome="ok",tool="search"} 2`},
		{"reload published", "POST", "/reload", "", fakeServer{reload: ResultPublished}, 200, `"result": "published"`},
		{"reload refused", "POST", "/reload", "", fakeServer{reload: ResultRefused}, 409, `"result": "refused"`},
		{"reload superseded", "POST", "/reload", "", fakeServer{reload: ResultSuperseded}, 409, `"result": "superseded"`},
		{"approve", "POST", "/approve", `{"fingerprint":"f","reason":"r"}`, fakeServer{}, 200, `"trigger": "approve"`},
		{"reject", "POST", "/reject", `{"fingerprint":"f","reason":"r"}`, fakeServer{}, 200, `"result": "rejected"`},
		{"not JSON", "POST", "/approve", `{`, fakeServer{}, 400, "the body must be a JSON object"},
		{"no reason", "POST", "/approve", `{}`, fakeServer{err: fmt.Errorf("approve: %w", ErrNoReason)}, 400, "a decision needs a reason"},
		{"no state", "POST", "/reject", `{}`, fakeServer{err: ErrNoState}, 409, "no state"},
		{"not built", "POST", "/approve", `{}`, fakeServer{err: ErrNotBuilt}, 409, "does not build"},
		{"not pending", "POST", "/reject", `{}`, fakeServer{err: state.ErrNotPending}, 404, `"error"`},
		{"superseded", "POST", "/approve", `{}`, fakeServer{err: state.ErrSuperseded}, 410, `"error"`},
		{"other error", "POST", "/approve", `{}`, fakeServer{err: fmt.Errorf("disk full")}, 500, "disk full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Handler(&tc.srv, Guards{}).ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body)))
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.has) {
				t.Errorf("%s %s: %d %q, want %d with %q", tc.method, tc.path, rec.Code, rec.Body, tc.code, tc.has)
			}
		})
	}
}

// TestHandlerGuards: the probes pass no guard; every other endpoint passes
// Check, then Private.
func TestHandlerGuards(t *testing.T) {
	t.Parallel()
	deny := func(code int) func(http.Handler) http.Handler {
		return func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
		}
	}
	pass := func(h http.Handler) http.Handler { return h }
	for _, tc := range []struct {
		name   string
		g      Guards
		path   string
		method string
		code   int
	}{
		{"probe unchecked", Guards{Check: deny(403), Private: deny(401)}, "/readyz", "GET", 503},
		{"status checked", Guards{Check: deny(403), Private: deny(401)}, "/status", "GET", 403},
		{"status private", Guards{Check: pass, Private: deny(401)}, "/status", "GET", 401},
		{"metrics private", Guards{Check: pass, Private: deny(401)}, "/metrics", "GET", 401},
		{"reload private", Guards{Check: pass, Private: deny(401)}, "/reload", "POST", 401},
		{"approve private", Guards{Check: pass, Private: deny(401)}, "/approve", "POST", 401},
		{"reject private", Guards{Check: pass, Private: deny(401)}, "/reject", "POST", 401},
		{"unknown path checked, not private", Guards{Check: pass, Private: deny(401)}, "/nope", "GET", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Handler(&fakeServer{}, tc.g).ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.code {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.code)
			}
		})
	}
}
