package serve

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/lockfile"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// contractLists splits the upstream tools of a contract (a lockfile's
// set, the exposed names) by the upstreams of cfg, as the upstreams'
// own lists: a tool that is not one of the config's goes to the upstream
// with the longest prefix it starts with, its name without the prefix.
// owner maps each such exposed name to its upstream. ok is false when a
// tool cannot be attributed to one upstream (two upstreams with the same
// prefix, or none).
func contractLists(cfg *serveconfig.Config, contract *toolset.Set) (lists map[string]*toolset.Set, owner map[string]string, ok bool) {
	own := map[string]bool{}
	for _, t := range cfg.Tools {
		own[t.Name] = true
	}
	byUp := map[string][]*toolset.Tool{}
	owner = map[string]string{}
	for _, t := range contract.Tools {
		if own[t.Name] {
			continue
		}
		uc := prefixOwner(cfg.Upstreams, t.Name)
		if uc == nil {
			return nil, nil, false
		}
		owner[t.Name] = uc.Name
		byUp[uc.Name] = append(byUp[uc.Name], renamedTool(t, strings.TrimPrefix(t.Name, uc.Prefix)))
	}
	lists = map[string]*toolset.Set{}
	for _, uc := range cfg.Upstreams {
		set, err := toolset.NewSet(contract.Source, byUp[uc.Name])
		if err != nil {
			return nil, nil, false
		}
		lists[uc.Name] = set
	}
	return lists, owner, true
}

// prefixOwner is the upstream whose prefix is the longest one name starts
// with, or nil when none or two do.
func prefixOwner(ups []*serveconfig.UpstreamConfig, name string) *serveconfig.UpstreamConfig {
	var best *serveconfig.UpstreamConfig
	tie := false
	for _, uc := range ups {
		if !strings.HasPrefix(name, uc.Prefix) {
			continue
		}
		switch {
		case best == nil || len(uc.Prefix) > len(best.Prefix):
			best, tie = uc, false
		case len(uc.Prefix) == len(best.Prefix):
			tie = true
		}
	}
	if tie {
		return nil
	}
	return best
}

// renamedTool is t named name (its served bytes too).
func renamedTool(t *toolset.Tool, name string) *toolset.Tool {
	v := t.Value.Clone()
	for i := range v.Members {
		if v.Members[i].Key == "name" {
			v.Members[i].Value = canon.Value{Kind: canon.String, Str: name}
		}
	}
	return &toolset.Tool{Name: name, Raw: canon.AppendOrdered(nil, &v), Value: v, Source: t.Source, Offset: -1, Index: t.Index}
}

// quarantineAtStart is gateUpstreams for the first candidate, refused
// against the contract it was gated against (the state's or the
// baseline's): the upstreams whose changes refused it are served from
// that contract's tools of theirs, calls translated to their current
// lists, when the rest passes the gate. It reports whether that was
// published.
func (s *Server) quarantineAtStart(contract *lockfile.Lock, cand *Generation, now time.Time, res *ReloadResult, trigger string) bool {
	base := cand.base
	if base == nil || len(base.Upstreams) == 0 {
		return false
	}
	lists, owner, ok := contractLists(base, contract.Set)
	if !ok {
		return false
	}
	for _, t := range cand.Config.Tools {
		if t.Upstream != "" {
			owner[t.Name] = t.Upstream
		}
	}
	hold := quarantineOwned(res.Findings, owner)
	if hold == nil {
		return false
	}
	alt, _, err := s.buildCandidate(base, false, pick(lists, hold))
	if err != nil {
		s.log.Error("cannot build the quarantined first candidate", "error", err)
		return false
	}
	var ares ReloadResult
	s.quarantining = cand.Fingerprint // stays pending when alt is published
	ok = s.gated(contract, nil, alt, now, &ares, trigger)
	s.quarantining = ""
	if !ok {
		return false
	}
	names := sortedKeys(hold)
	res.Result, res.Version, res.Fingerprint, res.Changed, res.Quarantined, res.Cause = ResultQuarantined, ares.Version, ares.Fingerprint, true, names, nil
	res.Reason = fmt.Sprintf("%s; upstream(s) %s quarantined at start: the accepted contract's tools of theirs are served and calls translated; the refused candidate %s is pending", res.Reason, strings.Join(names, ", "), cand.Fingerprint)
	s.log.Warn("upstream changes refused at start: quarantined", "upstreams", names,
		"findings", findingSummaries(blockingOf(res.Findings)), "pending", cand.Fingerprint)
	return true
}

// fronts reports whether g's config has upstreams (a refusal of g at
// start may then quarantine them: quarantineAtStart).
func (g *Generation) fronts() bool {
	return g.base != nil && len(g.base.Upstreams) > 0
}

// pick returns the lists of the upstreams named in names.
func pick(lists map[string]*toolset.Set, names map[string]bool) map[string]*toolset.Set {
	out := map[string]*toolset.Set{}
	for name := range names {
		out[name] = lists[name]
	}
	return out
}
