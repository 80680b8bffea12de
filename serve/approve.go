package serve

import (
	"context"
	"fmt"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/internal/safefile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/state"
)

// Decision is an operator's approval or rejection of a pending candidate
// (admin.Decision).
type Decision = admin.Decision

// ErrNoReason is a decision without a reason.
var ErrNoReason = admin.ErrNoReason

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
