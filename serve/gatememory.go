package serve

import (
	"fmt"
	"time"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/toolset"
)

// gateMemory is what the gate remembers of this process's publishes, so
// that no sequence of reloads, each safe on its own, breaks a caller
// without permission (a sunset set in the past, then the removal "after
// the sunset", then the name re-added with another schema):
//
//   - noticed: when each deprecated tool's deprecation was first published;
//   - removed: the last published definition of each tool no longer served.
//
// It is read and written under Server.pubMu.
//
// With a state (serve --state), removed tools are also looked up in the
// state's memory (state.LastPublished), so a restart does not forget them.
type gateMemory struct {
	noticed map[string]time.Time
	removed map[string]*toolset.Tool
	state   *state.State
	// usage counts calls per tool and facade rule: the state's counters,
	// else counters in memory since the process started (initGateState).
	usage usageCounter
}

// lastPublished is the last published definition of tool, which live no
// longer has: this process's memory, else the state's.
func (m *gateMemory) lastPublished(tool string) *toolset.Tool {
	if prev := m.removed[tool]; prev != nil {
		return prev
	}
	if m.state == nil {
		return nil
	}
	t, _, ok := m.state.LastPublished(tool)
	if !ok {
		return nil
	}
	return t
}

// published records the publish of cand over old (nil for the first).
// A tool served deprecated by the first generation is taken as noticed at
// its "since" date when that is a date not after now (this process cannot
// know better), else now.
func (m *gateMemory) published(old, cand *toolset.Set, now time.Time) {
	if m.noticed == nil {
		m.noticed, m.removed = map[string]time.Time{}, map[string]*toolset.Tool{}
	}
	if old != nil {
		for _, t := range old.Tools {
			if cand.Lookup(t.Name) == nil {
				m.removed[t.Name] = t
				delete(m.noticed, t.Name)
			}
		}
	}
	for _, t := range cand.Tools {
		delete(m.removed, t.Name)
		declared, _, since := diff.Lifecycle(&t.Value)
		_, seen := m.noticed[t.Name]
		switch {
		case !declared:
			delete(m.noticed, t.Name)
		case !seen:
			m.noticed[t.Name] = now
			if s, err := time.Parse(time.DateOnly, since); old == nil && err == nil && !s.After(now) {
				m.noticed[t.Name] = s
			}
		}
	}
}

// baseline is the set a candidate is gated against: the live tools, plus
// the last published definition of each candidate tool the live set no
// longer has (a re-added name is compared with what callers last saw, not
// treated as new).
func (m *gateMemory) baseline(live, cand *toolset.Set) *toolset.Set {
	tools := live.Tools
	for _, t := range cand.Tools {
		if live.Lookup(t.Name) != nil {
			continue
		}
		if prev := m.lastPublished(t.Name); prev != nil {
			tools = append(tools[:len(tools):len(tools)], prev)
		}
	}
	if len(tools) == len(live.Tools) {
		return live
	}
	set, err := toolset.NewSet(live.Source, tools)
	if err != nil {
		return live // names are unique by construction
	}
	return set
}

// escalate makes lifecycle findings that would let a removal through
// without the notice callers are owed breaking: a deprecation (or a first
// sunset) whose sunset is less than minNotice away, and a removal after a
// sunset that was not announced at least minNotice before it.
func (m *gateMemory) escalate(rep *diff.Report, old, cand *toolset.Set, minNotice time.Duration, now time.Time) {
	for i := range rep.Changes {
		c := &rep.Changes[i]
		switch c.Rule {
		case "tool-deprecated", "sunset-moved-later":
			if t := cand.Lookup(c.Tool); t != nil {
				checkNotice(c, t, minNotice, now)
			}
		case "tool-removed-after-sunset":
			if t := old.Lookup(c.Tool); t != nil {
				m.checkRemoval(c, t, minNotice)
			}
		}
	}
}

// checkNotice makes the deprecation of t (c) breaking when its sunset is
// less than minNotice after now.
func checkNotice(c *diff.Change, t *toolset.Tool, minNotice time.Duration, now time.Time) {
	_, sunset, _ := diff.Lifecycle(&t.Value)
	if !sunset.IsZero() && sunset.Before(now.Add(minNotice)) {
		breaking(c, fmt.Sprintf("its sunset %s is less than the minimum notice (gate.minNotice %s) away: removing it at the sunset would break callers without warning", sunset.Format(time.DateOnly), minNotice))
	}
}

// checkRemoval makes the removal of t after its sunset (c) breaking unless
// its deprecation was published at least minNotice before the sunset.
func (m *gateMemory) checkRemoval(c *diff.Change, t *toolset.Tool, minNotice time.Duration) {
	_, sunset, _ := diff.Lifecycle(&t.Value)
	at, ok := m.noticed[c.Tool]
	switch {
	case !ok:
		breaking(c, "this server never published its deprecation")
	case sunset.Sub(at) < minNotice:
		breaking(c, fmt.Sprintf("its deprecation was first published %s, less than the minimum notice (gate.minNotice %s) before its sunset %s", at.UTC().Format(time.RFC3339), minNotice, sunset.Format(time.DateOnly)))
	}
}

// breaking raises c to breaking, saying why.
func breaking(c *diff.Change, why string) {
	c.Level = diff.Breaking
	c.Message += "; needs permission: " + why
}
