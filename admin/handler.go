package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpctl/mcpctl/state"
)

// Server is what the admin endpoints need of a running server; package
// serve's *Server implements it.
type Server interface {
	// Status is the /status document, assembled when asked.
	Status() Status
	// Ready reports whether /readyz answers 200: the first generation is
	// published, the transports are up and the server is not draining.
	Ready() bool
	// Reload runs the reload pipeline (POST /reload; trigger "admin").
	Reload(ctx context.Context, trigger string) ReloadResult
	// Approve and Reject decide a pending candidate; their errors are
	// ErrNoReason, ErrNoState, ErrNotBuilt, state.ErrNotPending or
	// state.ErrSuperseded (each its HTTP status), or any other (500).
	Approve(ctx context.Context, d Decision) (ReloadResult, error)
	Reject(d Decision) error
	// Metrics gathers the server's Prometheus metrics (GET /metrics).
	Metrics() prometheus.Gatherer
}

// Errors of Approve and Reject.
var (
	// ErrNoReason is a decision without a reason.
	ErrNoReason = errors.New("a decision needs a reason")
	// ErrNotBuilt is returned by Approve when the config on disk no
	// longer builds the fingerprint being approved.
	ErrNotBuilt = errors.New("the config on disk does not build this fingerprint")
	// ErrNoState is returned by Approve and Reject on a server without a
	// state (serve --state).
	ErrNoState = errors.New("no state: start serve with --state DIR to keep pending candidates")
)

// Guards are the server's checks around the endpoints: Check wraps every
// request but the probes (Host and Origin), Private each endpoint that
// tells or changes something (the bearer token). Nil is no check.
type Guards struct {
	Check, Private func(http.Handler) http.Handler
}

// Handler serves the admin endpoints (docs/serve.md#transports-admin-security):
// GET /healthz, GET /readyz (200 when srv.Ready, else 503), GET /status
// (Status as JSON), GET /metrics (Prometheus text format), POST /reload
// (its ReloadResult: 200 published, unchanged or quarantined, 409 refused
// or superseded), POST /approve and POST /reject (a Decision in; the
// result, or {"error": …} with the error's status, out).
//
// The probes answer any request: they tell nothing, and a kubelet probes
// them with the pod's address as Host. Every other request goes through
// g.Check, and each endpoint behind it through g.Private.
func Handler(srv Server, g Guards) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /healthz", probes(srv))
	mux.Handle("GET /readyz", probes(srv))
	mux.Handle("/", wrap(g.Check, private(srv, g.Private)))
	return mux
}

func wrap(guard func(http.Handler) http.Handler, h http.Handler) http.Handler {
	if guard == nil {
		return h
	}
	return guard(h)
}

// probes serves GET /healthz and GET /readyz.
func probes(srv Server) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !srv.Ready() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}

// private serves the endpoints behind the token: /status, /metrics, POST
// /reload, /approve and /reject.
func private(srv Server, guard func(http.Handler) http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /status", wrap(guard, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, srv.Status())
	})))
	mux.Handle("GET /metrics", wrap(guard, promhttp.HandlerFor(srv.Metrics(), promhttp.HandlerOpts{})))
	mux.Handle("POST /reload", wrap(guard, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res := srv.Reload(r.Context(), "admin")
		code := http.StatusOK
		if res.Result == ResultRefused || res.Result == ResultSuperseded {
			code = http.StatusConflict
		}
		writeJSON(w, code, res)
	})))
	mux.Handle("POST /approve", wrap(guard, decisionHandler(srv, true)))
	mux.Handle("POST /reject", wrap(guard, decisionHandler(srv, false)))
	return mux
}

// decisionHandler serves POST /approve and POST /reject: a JSON Decision
// in, the result (or {"error": …}) out.
func decisionHandler(srv Server, approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var d Decision
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&d); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be a JSON object {fingerprint, reason, until?}: " + err.Error()})
			return
		}
		var res any = map[string]string{"result": "rejected", "fingerprint": d.Fingerprint}
		var err error
		if approve {
			res, err = srv.Approve(r.Context(), d)
		} else {
			err = srv.Reject(d)
		}
		if err != nil {
			writeJSON(w, decisionStatus(err), map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, res)
	}
}

// decisionStatus is the HTTP status of a failed decision.
func decisionStatus(err error) int {
	switch {
	case errors.Is(err, state.ErrSuperseded):
		return http.StatusGone
	case errors.Is(err, state.ErrNotPending):
		return http.StatusNotFound
	case errors.Is(err, ErrNoReason):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotBuilt), errors.Is(err, ErrNoState):
		return http.StatusConflict
	}
	return http.StatusInternalServerError
}

// writeJSON answers v, encoded by Encode, with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	if err := Encode(&b, v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// Encode writes v as every admin answer is encoded (the bytes of GET
// /status that `mcpctl status --format json` prints): indented by two
// spaces, <, > and & escaped, with a final newline.
func Encode(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
