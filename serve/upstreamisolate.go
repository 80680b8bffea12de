package serve

import (
	"maps"
	"slices"

	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/upstream"
)

// isolateUpstreams builds cfg again after its build failed with err, when
// upstreams' lists changed since the live generation: the failure may be
// theirs (a tool named like a config tool or another upstream's exposed
// tool, an input schema that does not compile), and one upstream must not
// hold up the config's and the other upstreams' changes. The changed
// upstreams are served from their last accepted lists, calls translated to
// their current ones as for a quarantine (docs/serve.md#gateway); then each,
// in name order, is given its current list again when the build still
// succeeds with it. Without such upstreams, when the build fails even so,
// or when they hold nothing else up (the contract served would be live's),
// err is returned: the reload is refused with the located error.
func (s *Server) isolateUpstreams(cfg *serveconfig.Config, conns map[string]*upstream.Upstream, keys map[string]string, err error) (*Generation, bool, error) {
	live := s.live.Load()
	changed := changedUpstreams(cfg, live, conns)
	if len(changed) == 0 {
		return nil, false, err
	}
	accepted := live.acceptedLists(changed)
	hold := maps.Clone(accepted)
	cand, unchanged, berr := s.buildWith(cfg, conns, keys, hold)
	if berr != nil {
		return nil, false, err
	}
	for _, name := range sortedKeys(changed) {
		delete(hold, name)
		c, u, e := s.buildWith(cfg, conns, keys, hold)
		if e != nil {
			hold[name] = accepted[name]
			continue
		}
		if cand != nil {
			cand.discard()
		}
		cand, unchanged = c, u
	}
	if unchanged || cand.Fingerprint == live.Fingerprint {
		// Nothing else held up: refused as it is.
		if cand != nil {
			cand.discard()
		}
		return nil, false, err
	}
	s.log.Warn("upstream tool list(s) cannot be served: their last accepted tools stay served, calls translated to their current ones",
		"upstreams", slices.Sorted(maps.Keys(hold)), "error", err)
	return cand, unchanged, nil
}

// changedUpstreams names cfg's upstreams whose current list is not the one
// live serves.
func changedUpstreams(cfg *serveconfig.Config, live *Generation, conns map[string]*upstream.Upstream) map[string]bool {
	out := map[string]bool{}
	if live == nil {
		return out
	}
	for _, uc := range cfg.Upstreams {
		acc, up := live.lists[uc.Name], conns[uc.Name]
		if acc != nil && up != nil && listDigest(acc) != listDigest(up.Tools()) {
			out[uc.Name] = true
		}
	}
	return out
}
