package diff

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
	"github.com/mcpctl/mcpctl/toolset"
)

// This file finds where a removed tool's calls can go (DESIGN §4.4 facade
// level): a rename (tool-renamed) or a consolidation into a tool with a
// discriminator argument (tool-consolidated). Every route is verified, not
// assumed: example arguments of the old tool are translated with
// facade.Apply through the suggested alias and must validate against the
// target's input schema.
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
//   - Arguments fit a target when every old argument matches exactly one
//     target argument (none of them an injected discriminator) of a fitting
//     type, and every argument the target requires is injected or matches
//     an argument the old tool required.
//   - Renamed: a removed and an added tool whose arguments fit and match
//     one to one (nothing added, nothing dropped), whose names have the same
//     style key (photos.list, photos_list) — or, failing that, whose
//     normalized input schemas are identical, have at least one property,
//     and are the only removed/added pair with that schema.
//   - Consolidated: a removed tool and a new-side tool T with a
//     discriminator argument D (method, action, operation, op or command:
//     a string enum) whose enum holds a value derived from the old name —
//     the name itself, its style key, or its words minus T's name words
//     (get_issue_comments into issue_read gives get_comments) — and whose
//     arguments fit T with D injected.

// discriminatorNames are the argument names that select a consolidated
// tool's behaviour, in preference order.
var discriminatorNames = []string{"method", "action", "operation", "op", "command"}

// route is where a removed tool's calls can go, verified.
type route struct {
	Rule    string // tool-renamed or tool-consolidated
	Target  string
	Alias   facade.Alias
	Witness map[string]any // old arguments the alias carries to the target
	Detail  string         // for consolidation: "method: list_workflows"
	// Redescribed lists the old arguments whose description differs at the
	// target: the schemas fit, but the meaning may not.
	Redescribed []string
}

// suggestion is the facade block that declares the route.
func (r route) suggestion() *Suggestion {
	return &Suggestion{Tool: r.Target, Block: facade.Block{Aliases: []facade.Alias{r.Alias}}}
}

// File returns the suggestion as a facade file ({tool: block}, DESIGN §6.1),
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
	return a, true
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

// fitArgs maps the old arguments onto the target's, with inject naming the
// target arguments an alias sets. It returns the renames the alias needs
// and, when the arguments do not fit, why (empty when they fit).
func fitArgs(old, target argSet, inject map[string]bool, targetName string) (map[string]string, []string) {
	oldNames := map[string]bool{}
	for _, a := range old.Args {
		oldNames[a.Name] = true
	}
	byKey := map[string][]string{}
	for _, a := range target.Args {
		if !inject[a.Name] && !oldNames[a.Name] {
			k := styleKey(a.Name)
			byKey[k] = append(byKey[k], a.Name)
		}
	}
	rename := map[string]string{}
	mapped := map[string]string{} // target name -> old name
	var why []string
	for _, a := range old.Args {
		if inject[a.Name] {
			why = append(why, fmt.Sprintf("old argument %q would be overwritten by the injected one", a.Name))
			continue
		}
		to := ""
		if _, ok := target.get(a.Name); ok {
			to = a.Name
		} else if c := byKey[styleKey(a.Name)]; len(c) == 1 {
			to = c[0]
			rename[a.Name] = to
		}
		if to == "" {
			why = append(why, fmt.Sprintf("argument %q has no counterpart in %s", a.Name, targetName))
			continue
		}
		if prev, dup := mapped[to]; dup {
			why = append(why, fmt.Sprintf("arguments %q and %q both map to %q", prev, a.Name, to))
			continue
		}
		mapped[to] = a.Name
		ta, _ := target.get(to)
		if !typeFits(a.Types, ta.Types) {
			why = append(why, fmt.Sprintf("argument %q is %s, %s takes %s as %q", a.Name, typeText(a.Types), targetName, typeText(ta.Types), to))
		}
	}
	req := make([]string, 0, len(target.Required))
	for r := range target.Required {
		req = append(req, r)
	}
	sortKeys(req)
	for _, r := range req {
		if inject[r] {
			continue
		}
		from, ok := mapped[r]
		switch {
		case !ok:
			why = append(why, fmt.Sprintf("%s requires %q, which old calls do not send", targetName, r))
		case !old.Required[from]:
			why = append(why, fmt.Sprintf("%s requires %q, which old calls may omit", targetName, r))
		}
	}
	if len(rename) == 0 {
		rename = nil
	}
	return rename, why
}

// routeFinder finds routes for the removed tools of one comparison.
type routeFinder struct {
	c       *comparison
	removed []*toolset.Tool
	added   []*toolset.Tool
	// Why records, per removed tool, why candidate routes were rejected.
	Why map[string][]string
}

// find returns the verified route of each removed tool that has one.
func (f *routeFinder) find() map[string]route {
	f.Why = map[string][]string{}
	routes := map[string]route{}
	used := map[string]bool{}
	// Renames by name: same style key.
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
	// Renames by schema: identical normalized input schema, unique pairing.
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
	// Consolidations.
	for _, rt := range f.removed {
		if _, done := routes[rt.Name]; done {
			continue
		}
		if r, ok := f.consolidation(rt); ok {
			routes[rt.Name] = r
		}
	}
	return routes
}

// rename checks a removed/added pair for tool-renamed.
func (f *routeFinder) rename(rt, at *toolset.Tool) (route, bool) {
	old, ok1 := f.c.args(rt)
	tgt, ok2 := f.c.args(at)
	if !ok1 || !ok2 || len(old.Args) != len(tgt.Args) {
		return route{}, false
	}
	rename, why := fitArgs(old, tgt, nil, at.Name)
	if len(why) > 0 {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("not renamed to %s: %s", at.Name, why[0]))
		return route{}, false
	}
	r := route{Rule: "tool-renamed", Target: at.Name, Alias: facade.Alias{Name: rt.Name, Rename: rename}}
	w, err := f.c.verifyRoute(rt, at, r.Alias)
	if err != nil {
		f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("not renamed to %s: %v", at.Name, err))
		return route{}, false
	}
	r.Witness = w
	r.Redescribed = redescribed(old, tgt, rename)
	return r, true
}

// consolidation looks for a tool-consolidated route of rt.
func (f *routeFinder) consolidation(rt *toolset.Tool) (route, bool) {
	old, ok := f.c.args(rt)
	if !ok {
		return route{}, false
	}
	type candidate struct {
		t           *toolset.Tool
		tgt         argSet
		disc, value string
		rank        int
	}
	var cands []candidate
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
			for rank, v := range derivedValues(rt.Name, t.Name) {
				if slices.Contains(enum, v) {
					cands = append(cands, candidate{t: t, tgt: tgt, disc: d, value: v, rank: rank})
					break
				}
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return a.rank - b.rank })
	for _, cd := range cands {
		where := fmt.Sprintf("%s has %s %q", cd.t.Name, cd.disc, cd.value)
		rename, why := fitArgs(old, cd.tgt, map[string]bool{cd.disc: true}, cd.t.Name)
		if len(why) > 0 {
			f.Why[rt.Name] = append(f.Why[rt.Name], where+", but "+strings.Join(why, "; "))
			continue
		}
		alias := facade.Alias{Name: rt.Name, Inject: map[string]any{cd.disc: cd.value}, Rename: rename}
		w, err := f.c.verifyRoute(rt, cd.t, alias)
		if err != nil {
			f.Why[rt.Name] = append(f.Why[rt.Name], fmt.Sprintf("%s, but %v", where, err))
			continue
		}
		return route{Rule: "tool-consolidated", Target: cd.t.Name, Alias: alias, Witness: w, Detail: cd.disc + ": " + cd.value,
			Redescribed: redescribed(old, cd.tgt, rename)}, true
	}
	return route{}, false
}

// redescribed lists the old arguments (in schema order) whose description
// differs from that of the target argument they map to.
func redescribed(old, tgt argSet, rename map[string]string) []string {
	var out []string
	for _, a := range old.Args {
		to := a.Name
		if r, ok := rename[a.Name]; ok {
			to = r
		}
		ta, ok := tgt.get(to)
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
func renameProperties(s *canon.Value, rename map[string]string) {
	if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
		for i := range p.Members {
			if to, ok := rename[p.Members[i].Key]; ok {
				p.Members[i].Key = to
			}
		}
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

// verifyRoute translates example arguments of the old tool through alias
// with facade.Apply and validates them against the target's input schema.
// It returns the first example (the witness) or why the route fails.
func (c *comparison) verifyRoute(old, target *toolset.Tool, alias facade.Alias) (map[string]any, error) {
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
	f := facade.File{target.Name: {Aliases: []facade.Alias{alias}}}
	validate := func(args map[string]any) error { return nc.Validate(args) }
	for _, ex := range examples {
		if _, _, err := facade.Apply(f, target.Name, validate, facade.Call{Tool: old.Name, Arguments: ex}); err != nil {
			return nil, fmt.Errorf("example %s is rejected after translation: %s", instanceText(ex), errorText(err))
		}
	}
	return examples[0], nil
}

// sampleCalls returns example argument objects valid under the old input
// schema s (compiled as sc), each checked with the validator, without
// duplicates: first one that sets every top-level property (so the witness
// of a route, and coverage, exercise every argument mapping), then
// exampleInstance's, then one with only the required properties.
func sampleCalls(s *canon.Value, sc *schema.Compiled) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	add := func(v any) {
		m, ok := v.(map[string]any)
		if !ok || !sc.Valid(m) {
			return
		}
		k := instanceText(m)
		if seen[k] {
			return
		}
		seen[k] = true
		out = append(out, m)
	}
	if v, ok := sampleObject(s, true, 0); ok {
		add(v)
	}
	if v, ok := exampleInstance(s); ok {
		add(v)
	}
	if v, ok := sampleObject(s, false, 0); ok {
		add(v)
	}
	return out
}

// maxSampleDepth bounds sampleValue on recursive schemas.
const maxSampleDepth = 8

// sampleObject builds an object for an object schema: every property when
// all, else the required ones, each from sampleValue.
func sampleObject(s *canon.Value, all bool, depth int) (map[string]any, bool) {
	if depth > maxSampleDepth || s.Kind != canon.Object {
		return nil, false
	}
	req := map[string]bool{}
	var reqOrder []string
	if r := s.Get("required"); r != nil && r.Kind == canon.Array {
		for _, it := range r.Items {
			if it.Kind == canon.String {
				req[it.Str] = true
				reqOrder = append(reqOrder, it.Str)
			}
		}
	}
	out := map[string]any{}
	if p := s.Get("properties"); p != nil && p.Kind == canon.Object {
		for i := range p.Members {
			m := &p.Members[i]
			if !all && !req[m.Key] {
				continue
			}
			v, ok := sampleValue(&m.Value, depth+1)
			if !ok {
				if req[m.Key] {
					return nil, false
				}
				continue
			}
			out[m.Key] = v
		}
	}
	for _, r := range reqOrder {
		if _, ok := out[r]; !ok {
			out[r] = "x"
		}
	}
	return out, true
}

// sampleValue builds a plausible value for a schema from what it declares
// (default, const, enum, examples, then its type and bounds). The result is
// a guess: callers validate it.
func sampleValue(s *canon.Value, depth int) (any, bool) {
	if depth > maxSampleDepth {
		return nil, false
	}
	switch s.Kind {
	case canon.Bool:
		return "x", s.Bool
	case canon.Object:
	default:
		return nil, false
	}
	for _, k := range []string{"default", "const"} {
		if v := s.Get(k); v != nil {
			return schema.Instance(v), true
		}
	}
	for _, k := range []string{"enum", "examples"} {
		if v := s.Get(k); v != nil && v.Kind == canon.Array && len(v.Items) > 0 {
			return schema.Instance(&v.Items[0]), true
		}
	}
	ty := ""
	for _, t := range argTypesOf(s) {
		if t != "null" {
			ty = t
			break
		}
		ty = t
	}
	if ty == "" {
		switch {
		case s.Has("properties") || s.Has("required"):
			ty = "object"
		case s.Has("items"):
			ty = "array"
		default:
			return "x", true
		}
	}
	switch ty {
	case "string":
		n := max(int(numberMember(s, "minLength", 1)), 1)
		return strings.Repeat("x", n), true
	case "integer", "number":
		v := 1.0
		if m, ok := numberOK(s, "minimum"); ok {
			v = m
		}
		if m, ok := numberOK(s, "exclusiveMinimum"); ok && v <= m {
			v = m + 1
		}
		if m, ok := numberOK(s, "maximum"); ok && v > m {
			v = m
		}
		if ty == "integer" {
			v = math.Ceil(v)
		}
		return json.Number(strconv.FormatFloat(v, 'f', -1, 64)), true
	case "boolean":
		return true, true
	case "null":
		return nil, true
	case "array":
		n := int(numberMember(s, "minItems", 0))
		items := []any{}
		if n > 0 {
			it := s.Get("items")
			if it == nil {
				return nil, false
			}
			v, ok := sampleValue(it, depth+1)
			if !ok {
				return nil, false
			}
			for range n {
				items = append(items, v)
			}
		}
		return items, true
	case "object":
		m, ok := sampleObject(s, false, depth)
		return m, ok
	}
	return nil, false
}

// numberOK reads a numeric schema keyword.
func numberOK(s *canon.Value, key string) (float64, bool) {
	v := s.Get(key)
	if v == nil || v.Kind != canon.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	return f, err == nil
}

// numberMember reads a numeric keyword or returns def.
func numberMember(s *canon.Value, key string, def float64) float64 {
	if f, ok := numberOK(s, key); ok {
		return f
	}
	return def
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
	verb := "renamed to " + r.Target
	if r.Rule == "tool-consolidated" {
		verb = fmt.Sprintf("consolidated into %s (%s)", r.Target, r.Detail)
	}
	c.Message = fmt.Sprintf("%s: old calls work through alias %s on %s", verb, name, r.Target)
	if len(how) > 0 {
		c.Message += " with " + strings.Join(how, " and ")
	}
	if len(r.Redescribed) > 0 {
		addNotice(&c, fmt.Sprintf("the schemas fit, but %s describes %s differently: check the arguments still mean the same", r.Target, strings.Join(r.Redescribed, ", ")))
	}
	return c
}
