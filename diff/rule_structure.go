package diff

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

var ratOne = big.NewRat(1, 1)

// Structure rules: object properties (added, removed, renamed),
// additionalProperties, patternProperties, propertyNames,
// dependentSchemas, array items, prefixItems and contains. Subschemas that
// exist on both sides are compared recursively, at their own path.

var trueSchema = canon.BoolValue(true)

var structureFamily = ruleFamily{
	name: "structure",
	rules: []schemaRuleDef{
		kindRule(kindPropertyAdded, Input, Safe, widens, schemaTagsExistence,
			"An input object gains an optional property, which is safe by default even on an open object (no additionalProperties: false) where by pure set semantics it narrows what the property could hold, and breaking there under Options.StrictOpenContent (--strict-open-content)."),
		kindRule(kindPropertyAdded, Output, Safe, narrows, schemaTagsExistence,
			"An open output object declares a new property: results could carry it before, and every new result was valid before."),
		kindRule(kindPropertyAddedClosed, Output, Breaking, widens, schemaTagsExistence,
			"A closed output object (additionalProperties: false) gains a property: clients validating against the old schema reject results that carry it."),
		withoutWitness("on an open object such a finding has no witness (every old argument still validates), since the reason is that the server may ignore the argument.",
			[]schemaRuleDef{kindRule(kindPropertyRemoved, Input, Breaking, reshapes, schemaTagsExistence,
				"An input property is no longer declared: arguments using it are rejected, or, on an open object, accepted but no longer documented or honoured by the server.")})[0],
		kindRule(kindPropertyRemoved, Output, Breaking, widens, schemaTagsExistence,
			"An open output object no longer declares a property: new results may carry it with any value, which clients validating against the old schema reject."),
		kindRule(kindPropertyRemovedClosed, Output, Safe, narrows, schemaTagsExistence,
			"An output object no longer declares a property that its other keywords still hold to the old property's schema (additionalProperties: false, or no wider than it): every new result was valid before, so the level is safe; the notice tells clients that read it (it was optional, or output-required-removed reports it) that it is gone or no longer documented."),
		withoutWitness("on an open object where the new name is optional such a finding has no witness (the old call still validates), since the reason is that the server no longer reads the old name.",
			[]schemaRuleDef{kindRule(kindPropertyRenamed, Input, Facade, narrows, schemaTagsExistence,
				"An input property is removed and another with an equal schema is added to the same object: old calls fail as sent, a rename facade carries them.")})[0],
		kindRule(kindAdditionalPropertiesClosed, Input, Breaking, narrows, schemaTagsStructure,
			"An input object forbids undeclared properties (additionalProperties: false added): extra keys clients or models send are rejected."),
		kindRule(kindAdditionalPropertiesClosed, Output, Safe, narrows, schemaTagsStructure,
			"An output object forbids undeclared properties: every new result was valid before."),
		kindRule(kindAdditionalPropertiesOpened, Input, Safe, widens, schemaTagsStructure,
			"An input object allows undeclared properties again (additionalProperties: false removed): every old argument stays valid."),
		kindRule(kindAdditionalPropertiesOpened, Output, Breaking, widens, schemaTagsStructure,
			"An output object allows undeclared properties: clients validating against the old schema reject results that carry extra keys."),
		kindRule(kindDependentSchemaAdded, Input, Breaking, narrows, schemaTagsStructure,
			"An input object gains a dependentSchemas entry: when the key is present, arguments must also satisfy the new schema."),
		kindRule(kindDependentSchemaAdded, Output, Safe, narrows, schemaTagsStructure,
			"An output object gains a dependentSchemas entry: every new result was valid before."),
		kindRule(kindDependentSchemaRemoved, Input, Safe, widens, schemaTagsStructure,
			"An input object loses a dependentSchemas entry: every old argument stays valid."),
		kindRule(kindDependentSchemaRemoved, Output, Breaking, widens, schemaTagsStructure,
			"An output object loses a dependentSchemas entry: results may violate what it required."),
		kindRule(kindContainsAdded, Input, Breaking, narrows, schemaTagsStructure,
			"An input array gains a contains constraint: arrays without a matching item are rejected."),
		kindRule(kindContainsAdded, Output, Safe, narrows, schemaTagsStructure,
			"An output array gains a contains constraint: every new result was valid before."),
		kindRule(kindContainsRemoved, Input, Safe, widens, schemaTagsStructure,
			"An input array loses its contains constraint: every old argument stays valid."),
		kindRule(kindContainsRemoved, Output, Breaking, widens, schemaTagsStructure,
			"An output array loses its contains constraint: results may lack the item clients relied on."),
	},
	check: checkStructure,
}

func checkStructure(p *subPair) {
	both := p.to & p.tn
	if both&tObject != 0 && !hasEnum(p.o) && !hasEnum(p.n) {
		checkProperties(p)
		checkAdditional(p)
		checkPatternProperties(p)
		checkPropertyNames(p)
		checkDependentSchemas(p)
	}
	if both&tArray != 0 && !hasEnum(p.o) && !hasEnum(p.n) {
		checkItems(p)
		checkContains(p)
	}
}

// memberNames returns the keys of an object keyword, in canonical order.
func memberNames(v *canon.Value) []string {
	if v == nil || v.Kind != canon.Object {
		return nil
	}
	names := make([]string, len(v.Members))
	for i, m := range v.Members {
		names[i] = m.Key
	}
	slices.SortFunc(names, canon.CompareKeys)
	return names
}

// unionNames returns the member names of a and b (objects or nil), each
// once, in canonical key order.
func unionNames(a, b *canon.Value) []string {
	keys := memberNames(a)
	for _, k := range memberNames(b) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, canon.CompareKeys)
	return keys
}

// effective returns the schema that applies to member key of objects under
// s (property, pattern, additionalProperties), with true for "anything".
func effective(s *canon.Value, key string) *canon.Value {
	var all []*canon.Value
	if p := getKW(s, "properties"); p != nil && p.Kind == canon.Object {
		if v := p.Get(key); v != nil {
			all = append(all, v)
		}
	}
	all = append(all, matchingPatterns(s, key)...)
	switch len(all) {
	case 0:
		return additionalOf(s)
	case 1:
		return all[0]
	}
	// A declared property also meets every pattern its name matches.
	items := make([]canon.Value, len(all))
	for i, v := range all {
		items[i] = v.Clone()
	}
	v := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(items...)})
	nz := &normalizer{draft: 2020}
	nz.node(&v)
	return &v
}

// matchingPatterns returns the patternProperties schemas of s whose
// pattern matches key (a pattern that does not compile matches nothing).
func matchingPatterns(s *canon.Value, key string) []*canon.Value {
	pp := getKW(s, "patternProperties")
	if pp == nil || pp.Kind != canon.Object {
		return nil
	}
	var out []*canon.Value
	for i := range pp.Members {
		if re := compileRegexp(pp.Members[i].Key); re != nil && re.MatchString(key) {
			out = append(out, &pp.Members[i].Value)
		}
	}
	return out
}

// isFalse reports whether s is the false schema (after resolution).
func isFalse(s *canon.Value) bool { return s != nil && s.Kind == canon.Bool && !s.Bool }

// isTrue reports whether s accepts everything syntactically.
func isTrue(s *canon.Value) bool {
	return s == nil || (s.Kind == canon.Bool && s.Bool) || (s.Kind == canon.Object && len(s.Members) == 0)
}

func checkProperties(p *subPair) {
	op, np := getKW(p.o, "properties"), getKW(p.n, "properties")
	removed, added := p.walkCommonProperties(op, np)
	removed, added = checkRenames(p, removed, added)
	for _, k := range removed {
		p.propertyRemoved(k, op.Get(k))
	}
	for _, k := range added {
		p.propertyAdded(k, np.Get(k))
	}
}

// walkCommonProperties compares the properties both sides declare
// recursively and returns the names only old declares and only new
// declares.
func (p *subPair) walkCommonProperties(op, np *canon.Value) (removed, added []string) {
	for _, k := range memberNames(op) {
		if np == nil || np.Get(k) == nil {
			removed = append(removed, k)
		}
	}
	for _, k := range memberNames(np) {
		if op == nil || op.Get(k) == nil {
			added = append(added, k)
		}
	}
	for _, k := range memberNames(op) {
		if np != nil && np.Get(k) != nil {
			ov, nv := op.Get(k), np.Get(k)
			if len(matchingPatterns(p.o, k))+len(matchingPatterns(p.n, k)) > 0 {
				ov, nv = effective(p.o, k), effective(p.n, k)
			}
			p.c.walk(ov, nv, pathKW(p.path, "properties", k), p.at.child(k, ov, nv), p.inv)
		}
	}
	return removed, added
}

// propertyRemoved reports property k, declared ov in old, no longer
// declared in new.
func (p *subPair) propertyRemoved(k string, ov *canon.Value) {
	ne := effective(p.n, k)
	path := pathKW(p.path, "properties", k)
	at := p.at.child(k, ov, ne)
	if isFalse(ov) {
		// A property declared false was never present: what changed is
		// the set of values the key may hold, which the type family
		// compares (false to anything widens).
		p.c.walk(ov, ne, path, at, p.inv)
		return
	}
	if p.c.p.Direction == Output && !p.inv && (isFalse(ne) || (!isTrue(ne) && p.c.subset(ne, p.c.new, ov, p.c.old, tAll))) {
		p.outputPropertyRemovedClosed(k, ov, ne, path, at)
		return
	}
	f := p.c.emitAt(kindPropertyRemoved, path, at, p.inv, ov, nil, fmt.Sprintf("%s is no longer declared", propWhere(p.path, k)))
	if p.c.p.Direction == Output {
		f.samples, f.sampleSide, f.reject = ne, p.c.new, ov
		return
	}
	f.samples, f.sampleSide, f.reject = ov, p.c.old, ne
	if isTrue(ne) && !p.inv {
		f.noWitness = fmt.Sprintf("the new schema still accepts %q (the object is open), but no longer documents it: the server may ignore it", k)
	}
}

// outputPropertyRemovedClosed reports an output property no longer
// declared whose values the new object still bounds (or never carries).
func (p *subPair) outputPropertyRemovedClosed(k string, ov, ne *canon.Value, path string, at *instLoc) {
	if isFalse(ne) {
		f := p.c.emitAt(kindPropertyRemovedClosed, path, at, p.inv, ov, nil, fmt.Sprintf("%s is no longer declared, and the closed object never carries it now", propWhere(p.path, k)))
		setNotice(f, fmt.Sprintf("new results never carry %q; clients that read it get nothing", k))
		return
	}
	f := p.c.emitAt(kindPropertyRemovedClosed, path, at, p.inv, ov, nil, fmt.Sprintf("%s is no longer declared; the object's other keywords still hold it to what the old property allowed", propWhere(p.path, k)))
	setNotice(f, fmt.Sprintf("%q is no longer documented; clients that read it may no longer get it", k))
}

// propertyAdded reports property k, declared nv in new, not declared in
// old.
func (p *subPair) propertyAdded(k string, nv *canon.Value) {
	oe := effective(p.o, k)
	path := pathKW(p.path, "properties", k)
	at := p.at.child(k, oe, nv)
	if isFalse(nv) {
		// Declared false: the key is never present now, which the type
		// family compares (anything to false narrows).
		p.c.walk(oe, nv, path, at, p.inv)
		return
	}
	if !isTrue(oe) && !isFalse(oe) {
		// The key was governed by additionalProperties or a pattern:
		// compare that schema with the new property's.
		p.c.walk(oe, nv, path, at, p.inv)
	}
	switch {
	case p.c.p.Direction == Output && isFalse(oe):
		f := p.c.emitAt(kindPropertyAddedClosed, path, at, p.inv, nil, nv, fmt.Sprintf("%s is newly declared, and the old closed schema rejects it", propWhere(p.path, k)))
		f.samples, f.sampleSide = nv, p.c.new
	case p.c.p.Direction == Output:
		p.c.emitAt(kindPropertyAdded, path, at, p.inv, nil, nv, fmt.Sprintf("%s is newly declared", propWhere(p.path, k)))
	default:
		p.inputPropertyAdded(k, oe, nv, path, at)
	}
}

// inputPropertyAdded reports an optional input property newly declared;
// where old accepted any value for the key (an open object) the new
// declaration narrows, which inside not widens and under strict open
// content is breaking.
func (p *subPair) inputPropertyAdded(k string, oe, nv *canon.Value, path string, at *instLoc) {
	f := p.c.emitAt(kindPropertyAdded, path, at, p.inv, nil, nv, fmt.Sprintf("optional %s is newly declared", propWhere(p.path, k)))
	if !isTrue(oe) {
		return
	}
	if p.inv {
		f.def = kindCompositionWidened.def(Input)
		f.Rule = string(f.def.ID)
		f.Level = levelOf(f.def.Rule)
	}
	if !p.inv && p.c.p.Opts.StrictOpenContent && f.def != nil {
		f.Level = Breaking
		f.Message += " (the object is open, and strict open content treats constraining a free property as breaking)"
		f.samples, f.sampleSide, f.reject = &trueSchema, p.c.old, nv
	}
}

// checkRenames pairs removed and added input properties with equal schemas
// (annotations aside) and equal requiredness as renames; it returns the
// properties left over.
func checkRenames(p *subPair, removed, added []string) ([]string, []string) {
	if p.c.p.Direction != Input || p.inv || len(removed) == 0 || len(added) == 0 {
		return removed, added
	}
	op, np := getKW(p.o, "properties"), getKW(p.n, "properties")
	oreq, nreq := requiredNames(p.o), requiredNames(p.n)
	used := map[string]bool{}
	var restRemoved []string
	for _, r := range removed {
		best, bestScore := "", -1
		rk := stripAnnotations(op.Get(r))
		for _, a := range added {
			if used[a] || slices.Contains(oreq, r) != slices.Contains(nreq, a) {
				continue
			}
			if !bytes.Equal(rk, stripAnnotations(np.Get(a))) {
				continue
			}
			if s := nameSimilarity(r, a); s > bestScore {
				best, bestScore = a, s
			}
		}
		arg, ok := p.at.argKey(r)
		if best == "" || !ok {
			restRemoved = append(restRemoved, r)
			continue
		}
		used[best] = true
		if p.renamed == nil {
			p.renamed = map[string]string{}
		}
		p.renamed[best] = r
		ov, nv := op.Get(r), np.Get(best)
		at := p.at.child(r, ov, effective(p.n, r))
		f := p.c.emitAt(kindPropertyRenamed, pathKW(p.path, "properties", r), at, false, ov, nv,
			fmt.Sprintf("%s was renamed to %q; a rename facade carries old calls", propWhere(p.path, r), best))
		p.c.suggest(f, facade.Block{Rename: map[string]string{arg: best}})
		f.samples, f.sampleSide = ov, p.c.old
		if isTrue(effective(p.n, r)) && !slices.Contains(nreq, best) {
			f.noWitness = fmt.Sprintf("the new schema still accepts %q (the object is open and %q is optional), but the server no longer reads it", r, best)
		}
	}
	var restAdded []string
	for _, a := range added {
		if !used[a] {
			restAdded = append(restAdded, a)
		}
	}
	return restRemoved, restAdded
}

// stripAnnotations returns the canonical form of a schema without its
// top-level annotations (title, description, examples, $comment).
func stripAnnotations(s *canon.Value) []byte {
	if s == nil {
		return nil
	}
	if s.Kind != canon.Object {
		return canon.AppendSchema(nil, s)
	}
	c := *s
	c.Members = nil
	for _, m := range s.Members {
		switch m.Key {
		case "title", "description", "examples", "$comment":
			continue
		}
		c.Members = append(c.Members, m)
	}
	return canon.AppendSchema(nil, &c)
}

// nameSimilarity scores how alike two property names are: the length of
// their common prefix and suffix, case-insensitively, plus containment.
func nameSimilarity(a, b string) int {
	a, b = strings.ToLower(a), strings.ToLower(b)
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	m := 0
	for m < len(a)-n && m < len(b)-n && a[len(a)-1-m] == b[len(b)-1-m] {
		m++
	}
	score := n + m
	if strings.Contains(a, b) || strings.Contains(b, a) {
		score += 2
	}
	return score
}

// freshKey returns a property name neither schema declares or patterns.
func freshKey(o, n *canon.Value) string {
	for i := 0; ; i++ {
		k := "extra"
		if i > 0 {
			k += strconv.Itoa(i)
		}
		if declaredOrPatterned(o, k) || declaredOrPatterned(n, k) {
			continue
		}
		return k
	}
}

func declaredOrPatterned(s *canon.Value, k string) bool {
	if p := getKW(s, "properties"); p != nil && p.Get(k) != nil {
		return true
	}
	if pp := getKW(s, "patternProperties"); pp != nil {
		for _, m := range pp.Members {
			if re := compileRegexp(m.Key); re == nil || re.MatchString(k) {
				return true
			}
		}
	}
	return false
}

func additionalOf(s *canon.Value) *canon.Value {
	if a := getKW(s, "additionalProperties"); a != nil {
		return a
	}
	return &trueSchema
}

func checkAdditional(p *subPair) {
	oa, na := additionalOf(p.o), additionalOf(p.n)
	oF, nF := isFalse(oa), isFalse(na)
	key := freshKey(p.o, p.n)
	at := p.at.sample(key, oa, na)
	path := pathKW(p.path, "additionalProperties")
	ov, nv := getKW(p.o, "additionalProperties"), getKW(p.n, "additionalProperties")
	switch {
	case oF && nF:
	case nF:
		f := p.c.emitAt(kindAdditionalPropertiesClosed, path, at, p.inv, ov, nv, fmt.Sprintf("%s no longer allows undeclared properties", whereIs(p.path)))
		f.samples, f.sampleSide = oa, p.c.old
	case oF:
		f := p.c.emitAt(kindAdditionalPropertiesOpened, path, at, p.inv, ov, nv, fmt.Sprintf("%s now allows undeclared properties", whereIs(p.path)))
		f.samples, f.sampleSide = na, p.c.new
	default:
		p.c.walk(oa, na, path, at, p.inv)
	}
}

func checkPatternProperties(p *subPair) {
	op, np := getKW(p.o, "patternProperties"), getKW(p.n, "patternProperties")
	if op == nil && np == nil {
		return
	}
	keys := unionNames(op, np)
	for _, k := range keys {
		var ov, nv *canon.Value
		if op != nil {
			ov = op.Get(k)
		}
		if np != nil {
			nv = np.Get(k)
		}
		if ov == nil {
			ov = additionalOf(p.o)
		}
		if nv == nil {
			nv = additionalOf(p.n)
		}
		name := "x"
		if s := regexSamples(k, 1, nil); len(s) > 0 {
			name = s[0]
		}
		p.c.walk(ov, nv, pathKW(p.path, "patternProperties", k), p.at.sample(name, ov, nv), p.inv)
	}
}

// checkPropertyNames compares the propertyNames subschemas as schemas
// over strings (property names are strings): an absent one is true, and
// types other than string do not count.
func checkPropertyNames(p *subPair) {
	ov, nv := getKW(p.o, "propertyNames"), getKW(p.n, "propertyNames")
	if ov == nil && nv == nil {
		return
	}
	if ov == nil {
		ov = &trueSchema
	}
	if nv == nil {
		nv = &trueSchema
	}
	p.c.walk(ov, nv, pathKW(p.path, "propertyNames"), p.at.propName(ov, nv), p.inv)
}

func checkDependentSchemas(p *subPair) {
	od, nd := getKW(p.o, "dependentSchemas"), getKW(p.n, "dependentSchemas")
	if od == nil && nd == nil {
		return
	}
	keys := unionNames(od, nd)
	for _, k := range keys {
		var ov, nv *canon.Value
		if od != nil {
			ov = od.Get(k)
		}
		if nd != nil {
			nv = nd.Get(k)
		}
		path := pathKW(p.path, "dependentSchemas", k)
		// The location holds key k, so the dependent schema applies.
		keyed := func(cands *finding, s *canon.Value, sd *schemaSide) {
			g := &instanceGen{sd: sd}
			base := g.value(s)
			if base.Kind != canon.Object {
				base = canon.ObjectValue()
			}
			if !base.Has(k) {
				base.Set(k, g.value(effective(s, k)))
			}
			cands.cands = append(cands.cands, []witnessEdit{{val: base}})
		}
		switch {
		case ov != nil && nv != nil:
			p.c.walk(ov, nv, path, p.at.branch(ov, nv), p.inv)
		case nv != nil:
			f := p.emit(kindDependentSchemaAdded, path, nil, nv, fmt.Sprintf("%s: when %q is present the object must now also match a dependent schema", whereIs(p.path), k))
			keyed(f, p.o, p.c.old)
			p.samplesFor(f)
		default:
			f := p.emit(kindDependentSchemaRemoved, path, ov, nil, fmt.Sprintf("%s: the dependent schema for %q is gone", whereIs(p.path), k))
			keyed(f, p.n, p.c.new)
			p.samplesFor(f)
		}
	}
}

func itemsOf(s *canon.Value) *canon.Value {
	if i := getKW(s, "items"); i != nil {
		return i
	}
	return &trueSchema
}

func prefixOf(s *canon.Value) []canon.Value {
	if p := getKW(s, "prefixItems"); p != nil && p.Kind == canon.Array {
		return p.Items
	}
	return nil
}

func checkItems(p *subPair) {
	po, pn := prefixOf(p.o), prefixOf(p.n)
	n := max(len(po), len(pn))
	at := func(s []canon.Value, rest *canon.Value, i int) *canon.Value {
		if i < len(s) {
			return &s[i]
		}
		return rest
	}
	io, in := itemsOf(p.o), itemsOf(p.n)
	for i := 0; i < n; i++ {
		ov, nv := at(po, io, i), at(pn, in, i)
		p.c.walk(ov, nv, pathKW(p.path, "prefixItems", strconv.Itoa(i)), p.at.item(i, ov, nv), p.inv)
	}
	p.c.walk(io, in, pathKW(p.path, "items"), p.at.item(n, io, in), p.inv)
}

func checkContains(p *subPair) {
	ov, nv := getKW(p.o, "contains"), getKW(p.n, "contains")
	path := pathKW(p.path, "contains")
	switch {
	case ov == nil && nv == nil:
	case ov == nil:
		f := p.emit(kindContainsAdded, path, nil, nv, fmt.Sprintf("%s must now contain an item matching a schema", whereIs(p.path)))
		p.samplesFor(f)
	case nv == nil:
		f := p.emit(kindContainsRemoved, path, ov, nil, fmt.Sprintf("%s no longer needs an item matching a schema", whereIs(p.path)))
		p.samplesFor(f)
	default:
		p.c.walk(ov, nv, path, p.at.item(0, ov, nv), p.inv)
	}
}
