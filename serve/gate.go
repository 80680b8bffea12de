package serve

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/serveconfig"
)

// Finding is one diff finding as the gate saw it (admin.Finding).
type Finding = admin.Finding

// gateDecision is the outcome of docs/serve.md#generations-and-the-reload-pipeline step 3.
type gateDecision struct {
	Report   *diff.Report
	Findings []Finding
	// Blocking are the findings needing permission that nothing covers.
	Blocking []Finding
	// Refused: Blocking is not empty and --allow-breaking is off.
	Refused bool
}

// gate diffs the candidate against the live generation with the engine of
// `mcpctl diff` and decides whether it may be published: every breaking
// finding, and every facade finding the candidate's declared facades do not
// cover, needs a gate.allow entry of the candidate's config (matching rule
// — any when the entry has none —, tool and path, not expired); otherwise the
// candidate is refused unless allowBreaking.
//
// mem makes the gate remember earlier publishes (gatememory.go): a tool
// re-added is diffed against its last published definition, and
// lifecycle findings that would let a removal through without the
// candidate's gate.minNotice of notice are breaking.
//
// usage judges facade-rule removals and tools removed after their sunset
// by the calls counted within gate.quietPeriod (docs/serve.md#state): the
// state's counters, or without --state those of this process.
//
// The contract gated against is prev (the live generation's, the state's
// or the baseline's); the candidate's gate.compatibility says in which
// directions (diff.Compatibility).
func gate(prev *lockfile.Lock, cand *Generation, mem *gateMemory, usage diff.UsageFunc, allowBreaking bool, now time.Time) gateDecision {
	old := mem.baseline(prev.Set, cand.Set)
	rep := diff.Compare(old, cand.Set, diff.Options{Facades: cand.Config.Facades(), OldFacades: prev.Facades,
		Compatibility: cand.Config.Gate.Compatibility, Verify: diff.DefaultVerify, Now: now,
		Usage: usage, QuietPeriod: cand.Config.Gate.EffectiveQuietPeriod()})
	mem.escalate(rep, old, cand.Set, cand.Config.Gate.EffectiveMinNotice(), now)
	return decide(rep, cand.Config.Gate.Allow, allowBreaking, now)
}

// merge adds to d the findings of e (cand gated against an older
// contract, gate.transitive) that d does not already have.
func (d *gateDecision) merge(e gateDecision) {
	seen := map[string]bool{}
	key := func(f Finding) string {
		return f.Rule + "\x00" + f.Tool + "\x00" + f.Path + "\x00" + string(f.Compatibility)
	}
	for _, f := range d.Findings {
		seen[key(f)] = true
	}
	for _, f := range e.Findings {
		if !seen[key(f)] {
			d.Findings = append(d.Findings, f)
		}
	}
	for _, f := range e.Blocking {
		if !seen[key(f)] {
			d.Blocking = append(d.Blocking, f)
		}
	}
	d.Refused = d.Refused || e.Refused
	if e.Report.Level > d.Report.Level {
		d.Report = e.Report
	}
}

// decide applies the gate.allow entries to a report. Only findings that
// count for Report.GateLevel at level facade or above (not ignored; facade
// not covered) need permission.
func decide(rep *diff.Report, allow []serveconfig.AllowEntry, allowBreaking bool, now time.Time) gateDecision {
	d := gateDecision{Report: rep}
	if rep.GateLevel() <= diff.Safe {
		for _, c := range rep.Changes {
			d.Findings = append(d.Findings, Finding{Change: c})
		}
		return d
	}
	for _, c := range rep.Changes {
		f := Finding{Change: c}
		f.NeedsPermission = !c.Ignored && (c.Level == diff.Breaking || (c.Level == diff.Facade && !c.Covered))
		if f.NeedsPermission {
			for _, e := range allow {
				if !(diff.Ignore{Rule: e.Rule, Tool: e.Tool, Path: e.Path}).Matches(c) {
					continue
				}
				if !e.Expires.IsZero() && !now.Before(e.Expires) {
					if f.Expired == "" {
						f.Expired = fmt.Sprintf("gate.allow entry at %s (%s) expired on %s and no longer covers it", e.Pos, e.Describe(), diff.ExpiryText(e.Expires))
					}
					continue
				}
				f.AllowedBy = e.Pos.String()
				break
			}
			if f.AllowedBy == "" {
				d.Blocking = append(d.Blocking, f)
			}
		}
		d.Findings = append(d.Findings, f)
	}
	d.Refused = len(d.Blocking) > 0 && !allowBreaking
	return d
}

// explain renders blocking findings for a refusal message, one per line.
func explain(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s %s: tool %q", f.Level, f.Rule, f.Tool)
		if f.Path != "" {
			fmt.Fprintf(&b, " at %s %s", f.Direction, f.Path)
		}
		if f.Message != "" {
			fmt.Fprintf(&b, ": %s", f.Message)
		}
		if f.Level == diff.Facade {
			b.WriteString(" (no declared facade covers it)")
		}
		if f.Expired != "" {
			fmt.Fprintf(&b, " [%s]", f.Expired)
		}
	}
	return b.String()
}
