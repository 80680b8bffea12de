package serve

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
	"github.com/mcpctl/mcpctl/upstream"
)

// unlistedNames are located warnings for the names in tools.include,
// tools.exclude and facades of uc (entry i of upstreams) that list, the
// upstream's current tools, does not have: a typo there serves nothing,
// or nothing different, without an error (the upstream may list the tool
// later, so it is not one).
func unlistedNames(i int, uc *serveconfig.UpstreamConfig, list *toolset.Set) []string {
	if list == nil {
		return nil
	}
	ptr := "/upstreams/" + strconv.Itoa(i)
	var out []string
	note := func(p, name string) {
		if list.Lookup(name) == nil {
			out = append(out, fmt.Sprintf("%s: %s: upstream %q lists no tool %q (it lists %s)",
				uc.Pos, p, uc.Name, name, strings.Join(list.Names(), ", ")))
		}
	}
	for j, n := range uc.Include {
		note(ptr+"/tools/include/"+strconv.Itoa(j), n)
	}
	for j, n := range uc.Exclude {
		note(ptr+"/tools/exclude/"+strconv.Itoa(j), n)
	}
	for _, n := range slices.Sorted(maps.Keys(uc.Facades)) {
		note(ptr+"/facades/"+canon.EscapePointer(n), n)
	}
	return out
}

// warnUnlisted logs the unlistedNames of cfg's upstreams against their
// connections' current lists.
func (s *Server) warnUnlisted(cfg *serveconfig.Config, conns map[string]*upstream.Upstream) {
	for i, uc := range cfg.Upstreams {
		if conns[uc.Name] == nil {
			continue
		}
		for _, w := range unlistedNames(i, uc, conns[uc.Name].Tools()) {
			s.log.Warn("config warning", "warning", w)
		}
	}
}
