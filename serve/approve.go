package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/state"
)

// Decision is an operator's approval or rejection of a pending candidate
// (POST /approve, POST /reject on the admin listener; mcpctl approve and
// reject).
type Decision struct {
	Fingerprint string `json:"fingerprint"`
	Reason      string `json:"reason"`
	// Actor names who decided (for the journal); optional.
	Actor string `json:"actor,omitempty"`
	// Until, for an approval, is when the operator's permission ends
	// (journalled with it); optional.
	Until *time.Time `json:"until,omitempty"`
}

// ErrNoReason is a decision without a reason.
var ErrNoReason = errors.New("a decision needs a reason")

// Approve publishes the pending candidate d.Fingerprint, if the config on
// disk still builds it (else ErrNotBuilt), and journals the approval
// (docs/serve.md#state).
func (s *Server) Approve(ctx context.Context, d Decision) (ReloadResult, error) {
	if err := s.checkDecision(d); err != nil {
		return ReloadResult{}, err
	}
	cfg, err := serveconfig.LoadConfigLimits(s.opts.ConfigPath, safefile.Limits{MaxSize: s.opts.MaxFileSize})
	if err != nil {
		return ReloadResult{}, fmt.Errorf("approve %s: %w: %w", d.Fingerprint, ErrNotBuilt, err)
	}
	cand, unchanged, err := s.buildCandidate(cfg, false, nil)
	if err != nil {
		return ReloadResult{}, fmt.Errorf("approve %s: %w: %w", d.Fingerprint, ErrNotBuilt, err)
	}
	if unchanged {
		return ReloadResult{}, fmt.Errorf("approve %s: %w: it is the live generation's config", d.Fingerprint, ErrNotBuilt)
	}
	if cand.Fingerprint != d.Fingerprint {
		cand.discard()
		return ReloadResult{}, fmt.Errorf("approve %s: %w: %s builds %s now (the pending candidate was replaced by a later edit; let the gate judge it, or approve that one when it is pending)",
			d.Fingerprint, ErrNotBuilt, s.opts.ConfigPath, cand.Fingerprint)
	}
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if err := s.opts.State.Approved(d.Fingerprint, d.Reason, d.Actor, d.Until); err != nil {
		cand.discard()
		return ReloadResult{}, err
	}
	now := s.opts.Clock.Now()
	res := ReloadResult{Trigger: "approve", At: now, Candidate: d.Fingerprint, Reason: d.Reason}
	allowed := state.Allowance{Kind: state.Approval, Reason: d.Reason, Actor: d.Actor, Until: d.Until}
	s.publishChanged(s.live.Load(), cand, now, &allowed, &res)
	s.log.Info("published an approved candidate", "version", cand.Version, "fingerprint", cand.Fingerprint, "reason", d.Reason)
	s.metrics.reloads.WithLabelValues(res.Result).Inc()
	s.recordReload(res)
	return res, nil
}

// Reject drops the pending candidate d.Fingerprint and journals why.
func (s *Server) Reject(d Decision) error {
	if err := s.checkDecision(d); err != nil {
		return err
	}
	if err := s.opts.State.Rejected(d.Fingerprint, d.Reason, d.Actor); err != nil {
		return err
	}
	s.log.Info("rejected a pending candidate", "fingerprint", d.Fingerprint, "reason", d.Reason)
	return nil
}

// checkDecision: a state, a reason and a pending candidate.
func (s *Server) checkDecision(d Decision) error {
	switch {
	case s.opts.State == nil:
		return ErrNoState
	case d.Reason == "":
		return ErrNoReason
	}
	return s.opts.State.CheckPending(d.Fingerprint)
}

// Pending lists the candidates waiting for a decision (none without a
// state).
func (s *Server) Pending() []state.Pending {
	if s.opts.State == nil {
		return []state.Pending{}
	}
	return s.opts.State.PendingList()
}

// decisionHandler serves POST /approve and POST /reject: a JSON Decision
// in, the result (or {"error": …}) out.
func (s *Server) decisionHandler(approve bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var d Decision
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&d); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be a JSON object {fingerprint, reason, until?}: " + err.Error()})
			return
		}
		var res any = map[string]string{"result": "rejected", "fingerprint": d.Fingerprint}
		var err error
		if approve {
			res, err = s.Approve(r.Context(), d)
		} else {
			err = s.Reject(d)
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
