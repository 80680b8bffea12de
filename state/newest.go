package state

import "github.com/mcpctl/mcpctl/lockfile"

// The origins of the contract a first candidate is gated against.
const (
	FromNothing  = ""         // no state contract and no baseline: nothing to gate against
	FromState    = "state"    // the state's last published contract
	FromBaseline = "baseline" // the gate.baseline lockfile
)

// Choice is the contract the first candidate after a start is gated
// against: the contract (nil with FromNothing), where it came from, and
// why, in a sentence for logs.
type Choice struct {
	Contract *lockfile.Lock
	From     string
	Why      string
}

// Newest decides which contract the first candidate at start is gated
// against, between the state's last published contract and the baseline
// lockfile (nil: none). "Newest" is decided by content, never by clocks
// or file times (a ConfigMap or a checkout rewrites those):
//
//   - with only one of them, that one;
//   - when the baseline's fingerprint is one this state has published (the
//     state published it, and maybe later contracts since), the state's
//     last published contract;
//   - otherwise the baseline: a contract this state never published was
//     accepted elsewhere (committed by CI, published by another replica)
//     after anything the state knows.
func (s *State) Newest(baseline *lockfile.Lock) Choice {
	last := s.Last()
	switch {
	case last == nil && baseline == nil:
		return Choice{From: FromNothing, Why: "no published contract in the state and no baseline"}
	case last == nil:
		return Choice{Contract: baseline, From: FromBaseline, Why: "the state has no published contract"}
	case baseline == nil:
		return Choice{Contract: last.Contract, From: FromState, Why: "no baseline"}
	case s.HasPublished(baseline.Set.Fingerprint()):
		return Choice{Contract: last.Contract, From: FromState, Why: "the state has published the baseline's contract, and maybe later ones"}
	}
	return Choice{Contract: baseline, From: FromBaseline, Why: "the state never published the baseline's contract: it was accepted elsewhere, after anything the state knows"}
}
