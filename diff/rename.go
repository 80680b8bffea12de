package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// This file finds where a removed tool's calls can go (docs/diff.md#levels-and-rules facade
// level): a rename (tool-renamed) or a consolidation into a tool with a
// discriminator argument (tool-consolidated). Every route is verified, not
// assumed: example arguments of the old tool are translated with
// facade.Apply through the suggested facade and must validate against the
// target's input schema. The matching below only proposes candidates; the
// validator decides.
//
// Definitions:
//
//   - Two argument names match when they are equal or have the same style
//     key: the name split into words at separators (_ - . / space) and at
//     camelCase boundaries, lower-cased and joined with "_" (perPage,
//     per_page and per-page all give "per_page"). A style-key match becomes a
//     rename entry of the alias.
//   - An old argument's type fits a new one when the new schema names no
//     type, or each old type is among the new types (integer fits number).
//   - Arguments fit a target when every old argument maps to exactly one
//     target location (none of them an injected discriminator) of a fitting
//     type, no two old arguments map to the same location, and every
//     argument the target requires is injected or fed by an argument the
//     old tool required.
//   - Renamed: a removed and an added tool whose arguments fit by name
//     alone and match one to one (nothing added, nothing dropped, no type
//     conversion), whose names have the same style key (photos.list,
//     photos_list) — or, failing that, whose normalized input schemas are
//     identical, have at least one property, and are the only removed/added
//     pair with that schema. (A rename keeps strict matching: the renamed
//     pair is then compared as one tool, whose argument changes get their
//     own findings.)
//   - Consolidated: a removed tool and a new-side tool T with a
//     discriminator argument D (method, action, operation, op or command:
//     a string enum) whose enum holds a value derived from the old name —
//     the name itself, its style key, or its words minus T's name words
//     (get_issue_comments into issue_read gives get_comments) — and whose
//     arguments fit T with D injected. A value that merely extends such a
//     name (get_workflow_run_logs_url for get_workflow_run_logs) is not
//     taken: it may be another operation; the removal's reason names it.
//
// For a consolidation an old argument is mapped, in this order (the first
// rule that applies decides; a rule with two or more candidates rejects the
// target, with the reason, rather than pick one):
//
//  1. by name to a top-level argument of T (equal, else one style-key
//     match);
//  2. by name into a sub-object: to a property (equal name, else one
//     style-key match) of a top-level object argument of T (type object,
//     or no type, with declared properties) that no old argument matched
//     by name and that the old tool did not have — a pointer rename, e.g.
//     branch -> /workflow_runs_filter/branch;
//  3. by role, for an old argument whose last word is "id" (run_id,
//     artifactId, id): to the only free id argument of T, a top-level
//     argument whose last word is "id" that no rule above took, that is not
//     injected and that the old tool did not have (run_id -> resource_id).
//     The finding carries a notice: the schemas cannot tell whether the
//     target takes that kind of id.
//
// When a mapped argument's type does not fit, a coercion that converts
// every value of the old type is proposed in the target's facade block
// (tool-level coerce, applied after the alias's renames, keyed by the new
// location): integer, number and boolean to "string" (3 -> "3"), any
// non-array, non-null type to "array" when the target's items accept it
// (x -> [x]). Conversions that succeed only for some values (string to
// number) are never proposed. A tool-level coercion also applies to direct
// calls of T that fail validation, which is harmless: facade.Apply keeps a
// translation only when it validates. Two routes into one target that need
// different coercions of one location cannot share a facade: the later one
// (in name order) is rejected.

// discriminatorNames are the argument names that select a consolidated
// tool's behaviour, in preference order.
var discriminatorNames = []string{"method", "action", "operation", "op", "command"}

// route is where a removed tool's calls can go, verified.
type route struct {
	Rule    Rule // ruleToolRenamed or ruleToolConsolidated
	Target  string
	Alias   facade.Alias
	Coerce  map[string]string // tool-level coercions of Target's facade, by new location
	Witness map[string]any    // old arguments the facade carries to the target
	Detail  string            // for consolidation: "method: list_workflows"
	// Redescribed lists the old arguments whose description differs at the
	// target: the schemas fit, but the meaning may not.
	Redescribed []string
	// ByRole lists the old arguments mapped by role (rule 3 above), as
	// "run_id -> resource_id".
	ByRole []string
}

// block is the facade block that declares the route.
func (r route) block() facade.Block {
	return facade.Block{Coerce: r.Coerce, Aliases: []facade.Alias{r.Alias}}
}

// suggestion is the facade block that declares the route, for Target.
func (r route) suggestion() *Suggestion {
	return &Suggestion{Tool: r.Target, Block: r.block()}
}

// File returns the suggestion as a facade file ({tool: block}, docs/serve.md#config),
// ready to marshal as YAML or JSON and paste.
func (s *Suggestion) File() facade.File { return facade.File{s.Tool: s.Block} }

// argInfo is one top-level argument of an input schema.
type argInfo struct {
	Name   string
	Schema *canon.Value
	Types  []string // nil: any type
}

// argSet describes the top-level arguments of an input schema.
type argSet struct {
	Args     []argInfo
	Required map[string]bool
	byName   map[string]int
}

// readArgs reads the top-level properties and required list of a
// (normalized) input schema; ok is false when it is not an object schema.
func readArgs(s *canon.Value) (argSet, bool) {
	if s == nil || s.Kind != canon.Object {
		return argSet{}, false
	}
	if t := s.Get("type"); t == nil || t.Kind != canon.String || t.Str != "object" {
		return argSet{}, false
	}
	return readProps(s), true
}

// readProps reads the properties and required list of an object schema
// (of any type keyword).
func readProps(s *canon.Value) argSet {
	a := argSet{Required: map[string]bool{}, byName: map[string]int{}}
	if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
		for i := range p.Members {
			m := &p.Members[i]
			a.byName[m.Key] = len(a.Args)
			a.Args = append(a.Args, argInfo{Name: m.Key, Schema: &m.Value, Types: argTypesOf(&m.Value)})
		}
	}
	if r := s.Get("required"); r != nil && r.Kind == canon.Array {
		for _, it := range r.Items {
			if it.Kind == canon.String {
				a.Required[it.Str] = true
			}
		}
	}
	return a
}

// args returns the argument description of a tool's normalized input
// schema (cached per comparison).
func (c *comparison) args(t *toolset.Tool) (argSet, bool) {
	if r, ok := c.argCache[t]; ok {
		return r.set, r.ok
	}
	a, ok := readArgs(c.normalized(t).Get("inputSchema"))
	if c.argCache == nil {
		c.argCache = map[*toolset.Tool]argResult{}
	}
	c.argCache[t] = argResult{a, ok}
	return a, ok
}

type argResult struct {
	set argSet
	ok  bool
}

func (a argSet) get(name string) (argInfo, bool) {
	i, ok := a.byName[name]
	if !ok {
		return argInfo{}, false
	}
	return a.Args[i], true
}

// typesOf returns the sorted "type" names of a schema, nil when it has none.
func argTypesOf(s *canon.Value) []string {
	t := s.Get("type")
	if t == nil {
		return nil
	}
	switch t.Kind {
	case canon.String:
		return []string{t.Str}
	case canon.Array:
		var out []string
		for _, it := range t.Items {
			if it.Kind == canon.String {
				out = append(out, it.Str)
			}
		}
		slices.Sort(out)
		return out
	}
	return nil
}

// typeFits reports whether every value of the old types is of a new type.
func typeFits(old, new []string) bool {
	if new == nil {
		return true
	}
	if old == nil {
		return false
	}
	for _, t := range old {
		if !slices.Contains(new, t) && !(t == "integer" && slices.Contains(new, "number")) {
			return false
		}
	}
	return true
}

// typeText renders a type list for messages.
func typeText(ts []string) string {
	if ts == nil {
		return "any type"
	}
	return strings.Join(ts, "|")
}

// words splits a tool or argument name into lower-case words.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r == ':':
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// styleKey is a name with its case style removed (see the file comment).
func styleKey(name string) string { return strings.Join(words(name), "_") }

// argFit is how an old tool's arguments map onto a target's.
type argFit struct {
	// Rename maps old argument names to new locations, both as facade keys
	// (an argument name, or a JSON Pointer into a sub-object); nil when no
	// argument moves.
	Rename map[string]string
	// Coerce maps new locations to the type facade.Coerce converts to; nil
	// when no type needs converting.
	Coerce map[string]string
	// ByRole lists the mappings made by role, "run_id -> resource_id".
	ByRole []string
	// To is the target schema each mapped old argument lands in.
	To map[string]argInfo
	// Why says why the arguments do not fit; empty when they fit.
	Why []string
}

// argKey is the facade key of a top-level argument: its name, or a JSON
// Pointer when the name itself starts with "/" (facade.ParseKey).
func argKey(name string) string {
	if strings.HasPrefix(name, "/") {
		return "/" + canon.EscapePointer(name)
	}
	return name
}

// isObjectArg reports whether an argument is an object with declared
// properties, a place old arguments can move into.
func isObjectArg(a argInfo) bool {
	if a.Types != nil && !slices.Contains(a.Types, "object") {
		return false
	}
	p := a.Schema.Get("properties")
	return p != nil && p.Kind == canon.Object && len(p.Members) > 0
}

// isIDName reports whether a name's last word is "id" (run_id, artifactId).
func isIDName(name string) bool {
	w := words(name)
	return len(w) > 0 && w[len(w)-1] == "id"
}

// matchName returns the arguments of set whose name is name, else those
// whose style key is name's, among those keep accepts.
func matchName(set argSet, name string, keep func(string) bool) []string {
	if _, ok := set.get(name); ok && keep(name) {
		return []string{name}
	}
	var out []string
	k := styleKey(name)
	for _, a := range set.Args {
		if keep(a.Name) && styleKey(a.Name) == k {
			out = append(out, a.Name)
		}
	}
	return out
}

// coercionFor returns the facade coercion that turns every value of the
// old types into a value of the target argument's type, "" when none does
// (see the file comment).
func coercionFor(old []string, ta argInfo) string {
	if old == nil {
		return ""
	}
	if slices.Contains(ta.Types, "string") && !slices.ContainsFunc(old, func(t string) bool {
		return t != "integer" && t != "number" && t != "boolean"
	}) {
		return "string"
	}
	if slices.Contains(ta.Types, "array") && !slices.Contains(old, "array") && !slices.Contains(old, "null") {
		it := ta.Schema.Get("items")
		switch {
		case it == nil:
			return "array"
		case it.Kind == canon.Bool:
			if it.Bool {
				return "array"
			}
		case it.Kind == canon.Object && typeFits(old, argTypesOf(it)):
			return "array"
		}
	}
	return ""
}

// quoted renders names as "a", "b" for messages.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// fitArgs maps the old arguments onto the target's, with inject naming the
// target arguments an alias sets. By name only (rule 1 of the file
// comment) unless deep, which adds moves into sub-objects, the mapping of
// ids by role and coercions (rules 2 and 3).
func fitArgs(old, target argSet, inject map[string]bool, targetName string, deep bool) argFit {
	ft := &fitter{old: old, target: target, inject: inject, targetName: targetName, deep: deep,
		f: argFit{To: map[string]argInfo{}}, oldNames: map[string]bool{}, loc: map[string]string{},
		feeds: map[string][]string{}, nested: map[string]map[string]string{}}
	for _, a := range old.Args {
		ft.oldNames[a.Name] = true
	}
	pending := ft.byName()
	unmatched := ft.intoContainers(pending)
	ft.byRole(unmatched)
	ft.checkTypes()
	ft.checkRequired()
	return ft.f
}

// fitter is the state of one fitArgs.
type fitter struct {
	old, target argSet
	inject      map[string]bool
	targetName  string
	deep        bool
	f           argFit
	oldNames    map[string]bool
	loc         map[string]string            // old name -> new location (facade key)
	feeds       map[string][]string          // top-level target name -> old names
	containers  []container                  // rule 2's sub-objects
	nested      map[string]map[string]string // container -> member -> old name
}

// container is a target argument that is an object with properties.
type container struct {
	name    string
	members argSet
}

func (ft *fitter) why(format string, args ...any) {
	ft.f.Why = append(ft.f.Why, fmt.Sprintf(format, args...))
}

// free reports whether target argument n is neither injected, nor an old
// argument's own name, nor fed yet.
func (ft *fitter) free(n string) bool {
	return !ft.inject[n] && !ft.oldNames[n] && len(ft.feeds[n]) == 0
}

// byName is rule 1: by name, top level. An equal name is the argument
// itself; a style-key match must not be an old argument of its own. It
// returns the arguments without a match.
func (ft *fitter) byName() []argInfo {
	var pending []argInfo
	for _, a := range ft.old.Args {
		if ft.inject[a.Name] {
			ft.why("old argument %q would be overwritten by the injected one", a.Name)
			continue
		}
		c := matchName(ft.target, a.Name, func(n string) bool { return n == a.Name || (!ft.inject[n] && !ft.oldNames[n]) })
		switch len(c) {
		case 0:
			pending = append(pending, a)
		case 1:
			ft.loc[a.Name] = argKey(c[0])
			ft.feeds[c[0]] = append(ft.feeds[c[0]], a.Name)
			ft.f.To[a.Name], _ = ft.target.get(c[0])
		default:
			ft.why("argument %q matches %s of %s by case style: ambiguous", a.Name, quoted(c), ft.targetName)
		}
	}
	return pending
}

// intoContainers is rule 2 (deep only): by name, into a sub-object nobody
// matched by name. It returns the arguments still without a match.
func (ft *fitter) intoContainers(pending []argInfo) []argInfo {
	if ft.deep {
		for _, ta := range ft.target.Args {
			if ft.free(ta.Name) && isObjectArg(ta) {
				ft.containers = append(ft.containers, container{ta.Name, readProps(ta.Schema)})
			}
		}
	}
	var unmatched []argInfo
	for _, a := range pending {
		cands, infos, tail := ft.containerMatches(a.Name)
		switch len(cands) {
		case 0:
			unmatched = append(unmatched, a)
		case 1:
			ft.loc[a.Name] = cands[0]
			ft.f.To[a.Name] = infos[0]
			ct, m := tail[0][0], tail[0][1]
			ft.feeds[ct] = append(ft.feeds[ct], a.Name)
			if ft.nested[ct] == nil {
				ft.nested[ct] = map[string]string{}
			}
			if _, dup := ft.nested[ct][m]; !dup { // a second one is reported by checkTypes
				ft.nested[ct][m] = a.Name
			}
		default:
			ft.why("argument %q matches %s in %s: ambiguous", a.Name, quoted(cands), ft.targetName)
		}
	}
	return unmatched
}

// containerMatches returns the members of the containers that name
// matches: as facade keys, their infos and (container, member) pairs.
func (ft *fitter) containerMatches(name string) (cands []string, infos []argInfo, tail [][2]string) {
	for _, ct := range ft.containers {
		for _, m := range matchName(ct.members, name, func(string) bool { return true }) {
			cands = append(cands, "/"+canon.EscapePointer(ct.name)+"/"+canon.EscapePointer(m))
			mi, _ := ct.members.get(m)
			infos = append(infos, mi)
			tail = append(tail, [2]string{ct.name, m})
		}
	}
	return cands, infos, tail
}

// byRole is rule 3 (deep only): an id, by role, to the only free id
// argument. Any other argument left is reported.
func (ft *fitter) byRole(unmatched []argInfo) {
	var ids []string
	if ft.deep {
		for _, ta := range ft.target.Args {
			if ft.free(ta.Name) && isIDName(ta.Name) {
				ids = append(ids, ta.Name)
			}
		}
	}
	for _, a := range unmatched {
		switch {
		case !ft.deep || !isIDName(a.Name) || len(ids) == 0:
			ft.why("argument %q has no counterpart in %s", a.Name, ft.targetName)
		case len(ids) > 1:
			ft.why("argument %q is an id and %s has several free id arguments (%s): ambiguous", a.Name, ft.targetName, quoted(ids))
		default:
			ft.loc[a.Name] = argKey(ids[0])
			ft.feeds[ids[0]] = append(ft.feeds[ids[0]], a.Name)
			ft.f.To[a.Name], _ = ft.target.get(ids[0])
			ft.f.ByRole = append(ft.f.ByRole, a.Name+" -> "+ids[0])
		}
	}
}

// checkTypes checks one old argument per location and each one's type,
// recording renames and (deep only) coercions.
func (ft *fitter) checkTypes() {
	mappedTo := map[string]string{} // location -> old name
	for _, a := range ft.old.Args {
		to, ok := ft.loc[a.Name]
		if !ok {
			continue
		}
		if prev, dup := mappedTo[to]; dup {
			ft.why("arguments %q and %q both map to %q", prev, a.Name, to)
			continue
		}
		mappedTo[to] = a.Name
		if to != argKey(a.Name) {
			if ft.f.Rename == nil {
				ft.f.Rename = map[string]string{}
			}
			ft.f.Rename[argKey(a.Name)] = to
		}
		ta := ft.f.To[a.Name]
		if typeFits(a.Types, ta.Types) {
			continue
		}
		if kind := coercionFor(a.Types, ta); ft.deep && kind != "" {
			if ft.f.Coerce == nil {
				ft.f.Coerce = map[string]string{}
			}
			ft.f.Coerce[to] = kind
			continue
		}
		ft.why("argument %q is %s, %s takes %s as %q", a.Name, typeText(a.Types), ft.targetName, typeText(ta.Types), to)
	}
}

// checkRequired checks that old calls send what the target requires, at
// the top and inside the sub-objects used.
func (ft *fitter) checkRequired() {
	someRequired := func(names []string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return ft.old.Required[n] })
	}
	for _, r := range sortedKeys(ft.target.Required) {
		switch {
		case ft.inject[r]:
		case len(ft.feeds[r]) == 0:
			ft.why("%s requires %q, which old calls do not send", ft.targetName, r)
		case !someRequired(ft.feeds[r]):
			ft.why("%s requires %q, which old calls may omit", ft.targetName, r)
		}
	}
	for _, ct := range ft.containers {
		if len(ft.nested[ct.name]) == 0 {
			continue
		}
		for _, m := range sortedKeys(ct.members.Required) {
			at := "/" + canon.EscapePointer(ct.name) + "/" + canon.EscapePointer(m)
			src, ok := ft.nested[ct.name][m]
			switch {
			case !ok:
				ft.why("%s requires %q once %q is sent, which old calls do not send", ft.targetName, at, ct.name)
			case !ft.old.Required[src] && len(ft.feeds[ct.name]) > 1:
				ft.why("%s requires %q once %q is sent, which old calls may omit", ft.targetName, at, ct.name)
			}
		}
	}
}

// routeFinder finds routes for the removed tools of one comparison.
type routeFinder struct {
	c       *comparison
	removed []*toolset.Tool
	added   []*toolset.Tool
	// Why records, per removed tool, why candidate routes were rejected.
	Why map[string][]string
	// coerced records the coercions accepted routes put in each target's
	// facade block: target -> location -> type.
	coerced map[string]map[string]string
}

// find returns the verified route of each removed tool that has one.
func (f *routeFinder) find() map[string]route {
	f.Why = map[string][]string{}
	f.coerced = map[string]map[string]string{}
	routes := map[string]route{}
	used := map[string]bool{}
	f.renamesByName(routes, used)
	f.renamesBySchema(routes, used)
	f.consolidations(routes)
	return routes
}

// renamesByName adds the renames between tools of the same style key
// (routes by removed tool, used added tools).
func (f *routeFinder) renamesByName(routes map[string]route, used map[string]bool) {
	byKey := map[string][]*toolset.Tool{}
	for _, at := range f.added {
		k := styleKey(at.Name)
		byKey[k] = append(byKey[k], at)
	}
	for _, rt := range f.removed {
		for _, at := range byKey[styleKey(rt.Name)] {
			if used[at.Name] {
				continue
			}
			if r, ok := f.rename(rt, at); ok {
				routes[rt.Name] = r
				used[at.Name] = true
				break
			}
		}
	}
}

// renamesBySchema adds the renames between the tools left whose
// normalized input schemas are identical, when the pairing is unique.
func (f *routeFinder) renamesBySchema(routes map[string]route, used map[string]bool) {
	group := map[string][2][]*toolset.Tool{}
	var keys []string
	for side, tools := range [2][]*toolset.Tool{f.removed, f.added} {
		for _, t := range tools {
			if _, done := routes[t.Name]; (side == 0 && done) || (side == 1 && used[t.Name]) {
				continue
			}
			if a, ok := f.c.args(t); !ok || len(a.Args) == 0 {
				continue
			}
			k := string(canon.AppendSchema(nil, f.c.normalized(t).Get("inputSchema")))
			g, seen := group[k]
			if !seen {
				keys = append(keys, k)
			}
			g[side] = append(g[side], t)
			group[k] = g
		}
	}
	for _, k := range keys {
		g := group[k]
		if len(g[0]) != 1 || len(g[1]) != 1 {
			continue
		}
		if r, ok := f.rename(g[0][0], g[1][0]); ok {
			routes[g[0][0].Name] = r
		}
	}
}

// consolidations adds the consolidations of the removed tools left, in
// name order (which decides coercion conflicts).
func (f *routeFinder) consolidations(routes map[string]route) {
	for _, rt := range f.removed {
		if _, done := routes[rt.Name]; done {
			continue
		}
		r, ok := f.consolidation(rt)
		if !ok {
			continue
		}
		routes[rt.Name] = r
		for k, v := range r.Coerce {
			if f.coerced[r.Target] == nil {
				f.coerced[r.Target] = map[string]string{}
			}
			f.coerced[r.Target][k] = v
		}
	}
}

// rename checks a removed/added pair for tool-renamed.
func (f *routeFinder) rename(rt, at *toolset.Tool) (route, bool) {
	old, ok1 := f.c.args(rt)
	tgt, ok2 := f.c.args(at)
	if !ok1 || !ok2 || len(old.Args) != len(tgt.Args) {
		return route{}, false
	}
	fit := fitArgs(old, tgt, nil, at.Name, false)
	if len(fit.Why) > 0 {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("not renamed to %s: %s", at.Name, fit.Why[0]))
		return route{}, false
	}
	r := route{Rule: ruleToolRenamed, Target: at.Name, Alias: facade.Alias{Name: rt.Name, Rename: fit.Rename}}
	w, err := f.c.verifyRoute(rt, at, r.block())
	if err != nil {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("not renamed to %s: %v", at.Name, err))
		return route{}, false
	}
	r.Witness = w
	r.Redescribed = redescribed(old, fit)
	return r, true
}

// consolidation looks for a tool-consolidated route of rt.
func (f *routeFinder) consolidation(rt *toolset.Tool) (route, bool) {
	old, ok := f.c.args(rt)
	if !ok {
		return route{}, false
	}
	cands, extended := f.consolidationCandidates(rt)
	if len(cands) == 0 && len(extended) > 0 {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("no discriminator value is named after %s (%s: a longer name may be another operation, so it is not assumed to be this one)", rt.Name, strings.Join(extended, ", ")))
	}
	slices.SortStableFunc(cands, func(a, b consolidationCandidate) int { return a.rank - b.rank })
	for _, cd := range cands {
		if r, ok := f.consolidateInto(rt, old, cd); ok {
			return r, true
		}
	}
	return route{}, false
}

// consolidationCandidate is a new tool rt may have been consolidated
// into: its discriminator argument disc takes value, derived from rt's
// name (rank: the index among derivedValues).
type consolidationCandidate struct {
	t           *toolset.Tool
	tgt         argSet
	disc, value string
	rank        int
}

// consolidationCandidates lists the new tools with a discriminator value
// derived from rt's name, and (extended) the discriminator values that
// only extend a derived value.
func (f *routeFinder) consolidationCandidates(rt *toolset.Tool) (cands []consolidationCandidate, extended []string) {
	for _, t := range f.c.new.Tools {
		if t.Name == rt.Name {
			continue
		}
		tgt, ok := f.c.args(t)
		if !ok {
			continue
		}
		for _, d := range discriminatorNames {
			a, ok := tgt.get(d)
			if !ok {
				continue
			}
			enum := stringEnum(a.Schema)
			derived := derivedValues(rt.Name, t.Name)
			if rank := slices.IndexFunc(derived, func(v string) bool { return slices.Contains(enum, v) }); rank >= 0 {
				cands = append(cands, consolidationCandidate{t: t, tgt: tgt, disc: d, value: derived[rank], rank: rank})
				continue
			}
			for _, e := range enum {
				if slices.ContainsFunc(derived, func(v string) bool { return strings.HasPrefix(e, v+"_") }) {
					extended = append(extended, fmt.Sprintf("%s has %s %q", t.Name, d, e))
				}
			}
		}
	}
	return cands, extended
}

// consolidateInto fits and verifies the route of rt (arguments old) into
// cd; on failure it records why.
func (f *routeFinder) consolidateInto(rt *toolset.Tool, old argSet, cd consolidationCandidate) (route, bool) {
	where := fmt.Sprintf("%s has %s %q", cd.t.Name, cd.disc, cd.value)
	fit := fitArgs(old, cd.tgt, map[string]bool{cd.disc: true}, cd.t.Name, true)
	if len(fit.Why) > 0 {
		f.Why[rt.Name] = append(f.Why[rt.Name], where+", but "+strings.Join(fit.Why, "; "))
		return route{}, false
	}
	if why := f.coerceConflict(cd.t.Name, fit.Coerce); why != "" {
		f.Why[rt.Name] = append(f.Why[rt.Name], where+", but "+why)
		return route{}, false
	}
	r := route{Rule: ruleToolConsolidated, Target: cd.t.Name, Detail: cd.disc + ": " + cd.value,
		Alias:  facade.Alias{Name: rt.Name, Inject: map[string]any{cd.disc: cd.value}, Rename: fit.Rename},
		Coerce: fit.Coerce, ByRole: fit.ByRole}
	w, err := f.c.verifyRoute(rt, cd.t, r.block())
	if err != nil {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("%s, but %v", where, err))
		return route{}, false
	}
	r.Witness = w
	r.Redescribed = redescribed(old, fit)
	return r, true
}

// coerceConflict says why coercions cannot join target's facade block: an
// accepted route already coerces one of those locations to another type.
// Empty when they can.
func (f *routeFinder) coerceConflict(target string, coerce map[string]string) string {
	for _, k := range sortedKeys(coerce) {
		if have, ok := f.coerced[target][k]; ok && have != coerce[k] {
			return fmt.Sprintf("it needs coerce {%s: %s} where another route into %s needs %s", k, coerce[k], target, have)
		}
	}
	return ""
}

// redescribed lists the old arguments (in schema order) whose description
// differs from that of the target argument they map to.
func redescribed(old argSet, fit argFit) []string {
	var out []string
	for _, a := range old.Args {
		ta, ok := fit.To[a.Name]
		if !ok {
			continue
		}
		if od, nd := a.Schema.Get("description"), ta.Schema.Get("description"); od != nil && nd != nil && !sameValue(od, nd) {
			out = append(out, a.Name)
		}
	}
	return out
}

// renameProperties renames top-level properties of an object schema in
// place (in "properties" and "required"), as an alias rename does to calls.
// rename holds facade keys; entries that are not top-level on both sides
// are left out.
func renameProperties(s *canon.Value, facadeRename map[string]string) {
	rename := map[string]string{}
	for k, v := range facadeRename {
		kt, err1 := facade.ParseKey(k)
		vt, err2 := facade.ParseKey(v)
		if err1 == nil && err2 == nil && len(kt) == 1 && len(vt) == 1 {
			rename[kt[0]] = vt[0]
		}
	}
	if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
		for i := range p.Members {
			if to, ok := rename[p.Members[i].Key]; ok {
				p.Members[i].Key = to
			}
		}
		p.IndexMembers()
	}
	if r := s.Get("required"); r != nil && r.Kind == canon.Array {
		for i := range r.Items {
			if to, ok := rename[r.Items[i].Str]; ok && r.Items[i].Kind == canon.String {
				r.Items[i].Str = to
			}
		}
	}
}

// stringEnum returns the string members of a schema's enum.
func stringEnum(s *canon.Value) []string {
	e := s.Get("enum")
	if e == nil || e.Kind != canon.Array {
		return nil
	}
	var out []string
	for _, it := range e.Items {
		if it.Kind == canon.String {
			out = append(out, it.Str)
		}
	}
	return out
}

// derivedValues lists the discriminator values an old tool name may have
// become inside target, best first (see the file comment).
func derivedValues(old, target string) []string {
	out := []string{old}
	add := func(v string) {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	add(styleKey(old))
	ow, tw := words(old), words(target)
	rest := slices.Clone(ow)
	for _, w := range tw {
		if i := slices.Index(rest, w); i >= 0 {
			rest = slices.Delete(rest, i, i+1)
		}
	}
	if len(rest) > 0 && len(rest) < len(ow) {
		add(strings.Join(rest, "_"))
	}
	return out
}

// verifyRoute translates example arguments of the old tool, called under
// its own name, with facade.Apply through block (the facade the route
// suggests for target) and validates them against the target's input
// schema. It returns the first example (the witness) or why the route
// fails.
func (c *comparison) verifyRoute(old, target *toolset.Tool, block facade.Block) (map[string]any, error) {
	oc, err := c.compiled(old.InputSchema())
	if err != nil {
		return nil, fmt.Errorf("old input schema does not compile: %s", errorText(err))
	}
	nc, err := c.compiled(target.InputSchema())
	if err != nil {
		return nil, fmt.Errorf("input schema of %s does not compile: %s", target.Name, errorText(err))
	}
	examples := sampleCalls(old.InputSchema(), oc)
	if len(examples) == 0 {
		return nil, fmt.Errorf("no example arguments of %s could be built to check the route", old.Name)
	}
	f := facade.File{target.Name: block}
	validate := func(args map[string]any) error { return nc.Validate(args) }
	for _, ex := range examples {
		if _, _, err := facade.Apply(f, target.Name, validate, facade.Call{Tool: old.Name, Arguments: ex}); err != nil {
			return nil, fmt.Errorf("example %s is rejected after translation: %s", instanceText(ex), errorText(err))
		}
	}
	return examples[0], nil
}

// sampleCalls returns example argument objects valid under the old input
// schema s (compiled as sc), from instance.Examples on its normalized
// form, each checked with the validator, without duplicates: the one that
// sets the most top-level properties first (so the witness of a route,
// and coverage, exercise every argument mapping), then the others in the
// generator's order (minimal, rich, variants).
func sampleCalls(s *canon.Value, sc *schema.Compiled) []map[string]any {
	sd := newSide(s)
	var out []map[string]any
	for _, v := range instance.Examples(sc, sd.root, sd.resolve, maxSampleCalls) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	if i := widest(out); i > 0 {
		w := out[i]
		out = slices.Insert(slices.Delete(out, i, i+1), 0, w)
	}
	return out
}

// maxSampleCalls is how many example calls verify a route.
const maxSampleCalls = 3

// widest returns the index of the object with the most members (the
// first of them), -1 for none.
func widest(objs []map[string]any) int {
	best := -1
	for i, m := range objs {
		if best < 0 || len(m) > len(objs[best]) {
			best = i
		}
	}
	return best
}

// instanceText is the canonical JSON text of a decoded instance.
func instanceText(v any) string { return string(canonicalJSON(v)) }

// canonicalJSON encodes a decoded JSON value in RFC 8785 form (nil for a
// value encoding/json cannot encode).
func canonicalJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	cv, err := canon.Parse(b)
	if err != nil {
		return nil
	}
	return canon.AppendJCS(nil, &cv)
}

// routeChange is the finding for a removed tool with a verified route.
func routeChange(name string, r route) Change {
	c := newChange(r.Rule, name, "")
	c.Old, c.New = jsonString(name), jsonString(r.Target)
	c.Witness = canonicalJSON(r.Witness)
	c.Facade = r.suggestion()
	var how []string
	if len(r.Alias.Inject) > 0 {
		how = append(how, "inject {"+r.Detail+"}")
	}
	if len(r.Alias.Rename) > 0 {
		var rn []string
		for _, k := range sortedKeys(r.Alias.Rename) {
			rn = append(rn, k+" -> "+r.Alias.Rename[k])
		}
		how = append(how, "rename {"+strings.Join(rn, ", ")+"}")
	}
	if len(r.Coerce) > 0 {
		var co []string
		for _, k := range sortedKeys(r.Coerce) {
			co = append(co, k+": "+r.Coerce[k])
		}
		how = append(how, "coerce {"+strings.Join(co, ", ")+"} (tool-level, in the facade of "+r.Target+")")
	}
	verb := "renamed to " + r.Target
	if r.Rule.ID == ruleToolConsolidated.ID {
		verb = fmt.Sprintf("consolidated into %s (%s)", r.Target, r.Detail)
	}
	c.Message = fmt.Sprintf("%s: old calls work through alias %s on %s", verb, name, r.Target)
	switch len(how) {
	case 0:
	case 1:
		c.Message += " with " + how[0]
	default:
		c.Message += " with " + strings.Join(how[:len(how)-1], ", ") + " and " + how[len(how)-1]
	}
	if len(r.ByRole) > 0 {
		addNotice(&c, fmt.Sprintf("%s: matched as the only free id argument of %s, not by name; check that %s with %s takes that id", strings.Join(r.ByRole, ", "), r.Target, r.Target, r.Detail))
	}
	if len(r.Redescribed) > 0 {
		addNotice(&c, fmt.Sprintf("the schemas fit, but %s describes %s differently: check the arguments still mean the same", r.Target, strings.Join(r.Redescribed, ", ")))
	}
	return c
}
