package admin

import (
	"time"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/upstream"
)

// Status is the JSON document of GET /status and of `mcpctl status
// --admin ADDR --format json` (docs/output.md#status-of-one-server,
// schema docs/schema/status-output.schema.json).
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
	// MaxInFlight is the bound on InFlight (--max-calls; 0: none);
	// RefusedAtMax counts the calls answered with an isError result
	// without running because it was reached.
	MaxInFlight  int   `json:"maxInFlight"`
	RefusedAtMax int64 `json:"refusedAtMax"`
	// Pending are the refused candidates waiting for an operator's
	// decision (serve --state; mcpctl approve or reject), oldest first.
	Pending []state.Pending `json:"pending"`
	// Upstreams are the gateway's upstreams (docs/serve.md#gateway): state
	// (connected, restarting, quarantined, closed), restarts, tools listed
	// and served.
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

// CallCounts are one tool's call outcomes (/status "calls").
type CallCounts struct {
	OK      int64 `json:"ok"`
	Error   int64 `json:"error"`
	Invalid int64 `json:"invalid"`
}

// RolloutStatus is the blue/green part of /status
// (docs/serve.md#bluegreen).
type RolloutStatus struct {
	NewSessions string    `json:"newSessions"`
	StartedAt   time.Time `json:"startedAt"`
	RetireAt    time.Time `json:"retireAt"`
	// Blue is "alive" (taking sessions and shape-routed calls), "retired"
	// (its last sessions or calls still running) or "stopped".
	Blue string `json:"blue"`
	// BlueFingerprint is the fingerprint of blue's contract.
	BlueFingerprint string `json:"blueFingerprint"`
	// Sessions and Calls count by side ("blue", "green"): sessions open now,
	// calls taken since the rollout started.
	Sessions map[string]int   `json:"sessions"`
	Calls    map[string]int64 `json:"calls"`
}

// Reload results (ReloadResult.Result).
const (
	ResultPublished  = "published"
	ResultUnchanged  = "unchanged"
	ResultRefused    = "refused"
	ResultSuperseded = "superseded"
	// ResultQuarantined is a reload whose candidate the gate refused
	// because of upstream changes only: those upstreams are quarantined
	// (their last accepted tools stay served, calls translated to their
	// current ones), the rest of the candidate was published, and the
	// refused candidate is pending (docs/serve.md#gateway).
	ResultQuarantined = "quarantined"
)

// ReloadResult is the outcome of one reload
// (docs/serve.md#generations-and-the-reload-pipeline), kept for /status
// and answered by POST /reload and POST /approve.
type ReloadResult struct {
	Trigger string    `json:"trigger"`
	Result  string    `json:"result"`
	At      time.Time `json:"at"`
	// DurationMs is the time from the start of the build to the end of the
	// decision, in milliseconds.
	DurationMs float64 `json:"durationMs"`
	// Version and Fingerprint are the published generation's (for
	// published) or the live one's.
	Version     uint64 `json:"version"`
	Fingerprint string `json:"fingerprint"`
	// Candidate is the refused candidate's fingerprint, when it was built.
	Candidate string `json:"candidateFingerprint,omitempty"`
	// Changed: the canonical form changed, so sessions were notified.
	Changed bool `json:"changed"`
	// Errors are located problems of a candidate that could not be built.
	Errors []string `json:"errors,omitempty"`
	// Reason says in one sentence why a candidate was refused.
	Reason   string    `json:"reason,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	// AllowedBreaking: published only because of --allow-breaking.
	AllowedBreaking bool `json:"allowedBreaking,omitempty"`
	// Quarantined names the upstreams a refused change quarantined
	// (Result quarantined; docs/serve.md#gateway).
	Quarantined []string `json:"quarantined,omitempty"`

	// Cause is the refusal as an error, in the process that decided it
	// (nil unless refused); it is not part of the JSON document.
	Cause error `json:"-"`
}

// Err returns the refusal as an error (nil unless refused).
func (r *ReloadResult) Err() error { return r.Cause }

// Finding is one diff finding as the gate saw it.
type Finding struct {
	diff.Change
	// NeedsPermission: breaking, or facade not covered by the candidate's
	// own facades.
	NeedsPermission bool `json:"needsPermission"`
	// AllowedBy names the gate.allow entry that covers it ("file:line").
	AllowedBy string `json:"allowedBy,omitempty"`
	// Expired names an entry that would have covered it but is past its
	// expires date.
	Expired string `json:"expired,omitempty"`
}

// Decision is an operator's approval or rejection of a pending candidate
// (the body of POST /approve and POST /reject; mcpctl approve and
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
