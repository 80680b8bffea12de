package diff

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// Compare classifies every change from old to new (docs/diff.md#diff-classify-changes-with-proof). It is pure
// and deterministic: the same inputs and Options (with Now set) give a
// byte-identical JSON report.
//
// Order of work: tools on both sides are compared member by member (schema
// rules through compareSchemas, then documentation, annotation, execution,
// _meta and lifecycle rules); new-side tools are checked for MCP validity
// (tool-invalid); added tools are reported, except those that a removed
// tool was renamed to; each removed tool is judged by its lifecycle
// (tool-removed-after-sunset) or routed (tool-renamed, tool-consolidated,
// each with a verified facade suggestion) or reported tool-removed; facade
// rules OLD declared and NEW dropped are reported (rule_facade.go). Then
// Options apply: level overrides, facade coverage, ignores (config.go,
// coverage.go). Report.Level is the highest level of all findings; see
// Report.GateLevel for the level a gate should use. Options.Compatibility
// other than backward runs the comparison in the directions it names
// (compat.go).
func Compare(old, new *toolset.Set, opts Options) *Report {
	return compareWith(old, new, opts, nil)
}

// compareWith is Compare with the findings of the schema rules in disabled
// dropped, as if those rules were missing; only tests disable rules
// (export_test.go), to show that --verify catches what a missing rule lets
// through.
func compareWith(old, new *toolset.Set, opts Options, disabled map[string]bool) *Report {
	if opts.Compatibility != "" && opts.Compatibility != Backward {
		return compareCompat(old, new, opts)
	}
	c := &comparison{old: old, new: new, opts: &opts, now: opts.now(), disabled: disabled}
	r := &Report{
		Old:     Side{Source: old.Source, Fingerprint: c.fingerprint(old)},
		New:     Side{Source: new.Source, Fingerprint: c.fingerprint(new)},
		Changes: []Change{},
	}
	removed, schemaGone := c.compareShared(r)
	var added []*toolset.Tool
	for _, nt := range new.Tools {
		if old.Lookup(nt.Name) == nil {
			added = append(added, nt)
		}
	}
	r.Changes = append(r.Changes, invalidFindings(old, new, schemaGone, c.sameTool)...)
	renamedTo := c.reportRemoved(r, removed, added)
	r.Changes = append(r.Changes, c.facadeRemovals()...)
	for _, nt := range added {
		if !renamedTo[nt.Name] {
			ch := newChange(ruleToolAdded, nt.Name, "")
			ch.New = jsonString(nt.Name)
			ch.Message = "tool added"
			r.Changes = append(r.Changes, ch)
		}
	}
	applyLevels(r.Changes, opts.Levels)
	if opts.Facades != nil {
		c.cover(r.Changes, opts.Facades)
	}
	applyIgnores(r.Changes, opts.Ignores, c.now)
	finish(r)
	return r
}

// compareShared compares the tools both sides have, adding the findings to
// r; it returns the tools only old has and the names of tools whose input
// schema is gone (tool-invalid's concern).
func (c *comparison) compareShared(r *Report) (removed []*toolset.Tool, schemaGone map[string]bool) {
	schemaGone = map[string]bool{}
	for _, ot := range c.old.Tools {
		nt := c.new.Lookup(ot.Name)
		if nt == nil {
			removed = append(removed, ot)
			continue
		}
		if c.sameTool(ot, nt) {
			continue // one canonical form: nothing to find
		}
		if inputSchemaGone(c.normalized(ot), c.normalized(nt)) {
			schemaGone[ot.Name] = true
		}
		r.Changes = append(r.Changes, c.compareTool(ot.Name, ot, nt)...)
	}
	return removed, schemaGone
}

// reportRemoved adds a finding per removed tool (removed after its
// sunset, routed by a facade to an added tool, or plainly removed) and
// the comparison of each renamed tool with its new name; it returns the
// added tools that are renames.
func (c *comparison) reportRemoved(r *Report, removed, added []*toolset.Tool) map[string]bool {
	finder := &routeFinder{c: c, removed: removed, added: added}
	routes := finder.find()
	renamedTo := map[string]bool{}
	for _, rt := range removed {
		rte, routed := routes[rt.Name]
		after, note := removalVerdict(&rt.Value, c.now)
		switch {
		case after:
			ch := removedAfterSunset(rt.Name, note, rte, routed)
			c.quiet(&ch, rt.Name, "")
			r.Changes = append(r.Changes, ch)
		case routed:
			ch := routeChange(rt.Name, rte)
			if note != "" {
				ch.Message += "; " + note
			}
			r.Changes = append(r.Changes, ch)
		default:
			r.Changes = append(r.Changes, toolRemoved(rt.Name, note, finder.Why[rt.Name]))
		}
		if routed && !after && rte.Rule.ID == ruleToolRenamed.ID {
			renamedTo[rte.Target] = true
			r.Changes = append(r.Changes, c.compareRenamed(rt, c.new.Lookup(rte.Target), rte.Alias.Rename)...)
		}
	}
	return renamedTo
}

// removedAfterSunset is the finding of a tool removed at or after its
// announced sunset (note says when), with the facade that could still carry
// its calls when one routes them.
func removedAfterSunset(name, note string, rte route, routed bool) Change {
	ch := newChange(ruleToolRemovedAfterSunset, name, "")
	ch.Old = jsonString(name)
	ch.Message = "tool removed: " + note
	if routed {
		ch.Facade = rte.suggestion()
		ch.Message += "; old calls could still be carried by the suggested facade"
	}
	return ch
}

// toolRemoved is the finding of a tool removed with no facade to carry its
// calls; why says why each candidate facade did not fit.
func toolRemoved(name, note string, why []string) Change {
	ch := newChange(ruleToolRemoved, name, "")
	ch.Old = jsonString(name)
	ch.Message = "tool removed: every call to it fails"
	if note != "" {
		ch.Message += "; " + note
	}
	if len(why) > 0 {
		ch.Reason = "no facade: " + strings.Join(why, "; ")
	}
	ch.NoWitness = "any call to the tool is a witness"
	return ch
}

// comparison holds one Compare call's inputs and caches.
type comparison struct {
	old, new *toolset.Set
	opts     *Options
	now      time.Time
	norm     map[*toolset.Tool]*canon.Value
	comp     map[*canon.Value]compileResult
	argCache map[*toolset.Tool]argResult
	canon    map[*toolset.Tool][]byte
	// disabled are the schema rules whose findings are dropped (compareWith).
	disabled map[string]bool
}

// canonical returns a tool's canonical form (cached): the fingerprints and
// the whole-tool equality test share one encoding per tool.
func (c *comparison) canonical(t *toolset.Tool) []byte {
	if b, ok := c.canon[t]; ok {
		return b
	}
	b := t.Canonical(false)
	if c.canon == nil {
		c.canon = map[*toolset.Tool][]byte{}
	}
	c.canon[t] = b
	return b
}

// fingerprint is s.Fingerprint(), built from the cached tool encodings.
func (c *comparison) fingerprint(s *toolset.Set) string {
	size := 16
	for _, t := range s.Tools {
		size += len(c.canonical(t)) + 1
	}
	buf := make([]byte, 0, size)
	buf = append(buf, `{"tools":[`...)
	for i, t := range s.Tools {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, c.canonical(t)...)
	}
	buf = append(buf, "]}"...)
	return canon.Fingerprint(buf)
}

// sameTool reports whether two tools have one canonical form.
func (c *comparison) sameTool(a, b *toolset.Tool) bool {
	return bytes.Equal(c.canonical(a), c.canonical(b))
}

type compileResult struct {
	c   *schema.Compiled
	err error
}

// normalized returns a normalized deep copy of a tool's value (cached).
func (c *comparison) normalized(t *toolset.Tool) *canon.Value {
	if v, ok := c.norm[t]; ok {
		return v
	}
	v := t.Value.Clone()
	canon.NormalizeTool(&v)
	if c.norm == nil {
		c.norm = map[*toolset.Tool]*canon.Value{}
	}
	c.norm[t] = &v
	return &v
}

// compiled compiles a schema once per comparison.
func (c *comparison) compiled(s *canon.Value) (*schema.Compiled, error) {
	if r, ok := c.comp[s]; ok {
		return r.c, r.err
	}
	sc, err := schema.Compile(s)
	if c.comp == nil {
		c.comp = map[*canon.Value]compileResult{}
	}
	c.comp[s] = compileResult{sc, err}
	return sc, err
}

// compareTool compares two versions of one tool; findings are reported
// under name.
func (c *comparison) compareTool(name string, ot, nt *toolset.Tool) []Change {
	return c.compareValues(name, c.normalized(ot), c.normalized(nt))
}

// compareRenamed compares a renamed tool with its new version, under the
// old name, after applying the alias's argument renames to the old input
// schema, so that only what the alias does not carry is reported. The old
// name's deprecation is left out: it was about the old name, which is gone;
// a deprecation of the new tool is still reported.
func (c *comparison) compareRenamed(ot, nt *toolset.Tool, rename map[string]string) []Change {
	v := c.normalized(ot).Clone()
	renameProperties(v.Get("inputSchema"), rename)
	if m := v.Get("_meta"); m != nil && m.Delete(deprecatedKey) && len(m.Members) == 0 {
		v.Delete("_meta")
	}
	return c.compareValues(ot.Name, &v, c.normalized(nt))
}

// compareValues compares two normalized tool values.
func (c *comparison) compareValues(name string, ov, nv *canon.Value) []Change {
	var out []Change
	switch {
	case inputSchemaGone(ov, nv):
		out = append(out, inputSchemaRemoved(name, ov, nv))
	case inputSchemaArrived(ov, nv):
		out = append(out, inputSchemaAdded(name, ov, nv))
		out = append(out, compareSchemas(schemaPair{Tool: name, Direction: Input, Old: &anyArguments, New: schemaMember(nv, "inputSchema"), Opts: c.opts, disabled: c.disabled})...)
	default:
		out = append(out, compareSchemas(schemaPair{Tool: name, Direction: Input, Old: schemaMember(ov, "inputSchema"), New: schemaMember(nv, "inputSchema"), Opts: c.opts, disabled: c.disabled})...)
	}
	out = append(out, compareSchemas(schemaPair{Tool: name, Direction: Output, Old: schemaMember(ov, "outputSchema"), New: schemaMember(nv, "outputSchema"), Opts: c.opts, disabled: c.disabled})...)
	out = append(out, documentationChanges(name, ov, nv)...)
	out = append(out, annotationChanges(name, ov, nv)...)
	out = append(out, executionChanges(name, ov, nv)...)
	out = append(out, metaChanges(name, ov, nv)...)
	out = append(out, lifecycleChanges(name, ov, nv)...)
	out = append(out, otherMemberChanges(name, ov, nv)...)
	return out
}

// schemaMember returns a tool's schema member, nil when it is absent or
// JSON null (both mean "no schema" to the schema comparison).
func schemaMember(tool *canon.Value, key string) *canon.Value {
	v := tool.Get(key)
	if v == nil || v.Kind == canon.Null {
		return nil
	}
	return v
}

// finish sorts the changes deterministically and fills level and counts.
func finish(r *Report) {
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		if c := canon.CompareKeys(a.Tool, b.Tool); c != 0 {
			return c
		}
		if a.Level != b.Level {
			return int(b.Level) - int(a.Level)
		}
		if c := canon.CompareKeys(string(a.Direction), string(b.Direction)); c != 0 {
			return c
		}
		if c := canon.CompareKeys(a.Path, b.Path); c != 0 {
			return c
		}
		return canon.CompareKeys(a.Rule, b.Rule)
	})
	r.Counts = map[string]int{"safe": 0, "facade": 0, "breaking": 0}
	r.Level = LevelNone
	for _, c := range r.Changes {
		r.Counts[c.Level.String()]++
		if c.Level > r.Level {
			r.Level = c.Level
		}
	}
}

// sortKeys sorts names by canon.CompareKeys (RFC 8785 order).
func sortKeys(keys []string) { slices.SortFunc(keys, canon.CompareKeys) }

// sortedKeys returns a map's keys in RFC 8785 order.
func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sortKeys(keys)
	return keys
}
