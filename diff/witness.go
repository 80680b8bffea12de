package diff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/schema"
)

// This file builds and checks witnesses (docs/diff.md#witnesses-and-verification): for an input
// finding, a complete arguments object the old schema accepts and the new
// one rejects; for an output finding, a result the new schema accepts and
// the old one rejects. Candidates are built from the schemas (defaults,
// examples, enum members, boundary values, minimal valid instances), placed
// at the finding's instance location inside a complete base instance, and
// kept only when the validator (jsonschema/v6) agrees on both whole schemas.

// instLoc is an instance location: the keys and indexes from the root instance
// to where a finding applies, with the deepest old and new subschemas that
// apply there (and branch conjuncts met on the way).
type instLoc struct {
	parent *instLoc
	key    string
	index  int  // ≥ 0 for an array index, -1 for a key
	name   bool // the location is a property name (propertyNames)
	// synthetic: the key is a sample (patternProperties,
	// additionalProperties), not a declared name a facade could address.
	synthetic bool
	root      bool
	// excl are the JSON types no instance at this location can have: a
	// property name is a string (propertyNames), and a subschema met on the
	// way to the same instance (allOf, anyOf, oneOf, not, if/then/else,
	// dependentSchemas) only sees values of its parent's types. The zero
	// value excludes nothing.
	excl types
	o, n *canon.Value
	oAnd []*canon.Value
	nAnd []*canon.Value
}

func rootLoc(o, n *canon.Value) *instLoc { return &instLoc{root: true, index: -1, o: o, n: n} }

// child returns the location of member key.
func (l *instLoc) child(key string, o, n *canon.Value) *instLoc {
	return &instLoc{parent: l, key: key, index: -1, o: o, n: n}
}

// item returns the location of array element i.
func (l *instLoc) item(i int, o, n *canon.Value) *instLoc {
	return &instLoc{parent: l, index: i, o: o, n: n}
}

// sample returns the location of a member whose key is a sample name.
func (l *instLoc) sample(key string, o, n *canon.Value) *instLoc {
	return &instLoc{parent: l, key: key, index: -1, synthetic: true, o: o, n: n}
}

// propName returns the location of a property name of the object at l:
// its instances are strings (JSON Schema 2020-12 Core §10.3.2.4).
func (l *instLoc) propName(o, n *canon.Value) *instLoc {
	return &instLoc{parent: l, index: -1, name: true, excl: tAll &^ tString, o: o, n: n}
}

// domain returns the JSON types an instance at l can have.
func (l *instLoc) domain() types { return tAll &^ l.excl }

// within returns l limited to the types in t (l itself when that excludes
// nothing more).
func (l *instLoc) within(t types) *instLoc {
	if l.domain()&^t == 0 {
		return l
	}
	c := *l
	c.excl |= tAll &^ t
	return &c
}

// branch returns l with extra conjuncts (an anyOf/oneOf/allOf branch) on
// either side; nil branches add nothing.
func (l *instLoc) branch(o, n *canon.Value) *instLoc {
	c := *l
	if o != nil {
		c.oAnd = append(append([]*canon.Value(nil), l.oAnd...), o)
	}
	if n != nil {
		c.nAnd = append(append([]*canon.Value(nil), l.nAnd...), n)
	}
	return &c
}

// steps returns the chain from the root location to l.
func (l *instLoc) steps() []*instLoc {
	var out []*instLoc
	for x := l; x != nil; x = x.parent {
		out = append(out, x)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// argKey returns how a facade names the property key of the object at l:
// the bare name for a top-level argument, a JSON Pointer for a nested one;
// ok is false when the path goes through arrays or property names (a
// facade cannot address those).
func (l *instLoc) argKey(key string) (string, bool) {
	var toks []string
	for x := l; x != nil && !x.root; x = x.parent {
		if x.index >= 0 || x.name || x.synthetic {
			return "", false
		}
		toks = append(toks, x.key)
	}
	if len(toks) == 0 {
		return key, true
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(canon.EscapePointer(toks[i]))
	}
	b.WriteByte('/')
	b.WriteString(canon.EscapePointer(key))
	return b.String(), true
}

// argPath is argKey for the location itself (its last key).
func (l *instLoc) argPath() (string, bool) {
	if l.root || l.parent == nil || l.index >= 0 || l.name || l.synthetic {
		return "", false
	}
	return l.parent.argKey(l.key)
}

// witnessEdit is one change to a candidate at a finding's location: with key set,
// set (or delete) that member of the object there; without, replace the
// value there.
type witnessEdit struct {
	key string
	del bool
	val canon.Value
}

func setKey(key string, v canon.Value) []witnessEdit { return []witnessEdit{{key: key, val: v}} }
func delKey(key string) []witnessEdit                { return []witnessEdit{{key: key, del: true}} }

// compiled returns the side's compiled schema (compiled once, lazily).
func (s *schemaSide) compiledSchema() (*schema.Compiled, error) {
	if !s.compiledOK {
		s.compiledOK = true
		s.compiled, s.compileErr = schema.Compile(s.valid)
	}
	return s.compiled, s.compileErr
}

// accepts validates v against the whole schema of the side; an absent
// schema accepts everything.
func (s *schemaSide) accepts(v *canon.Value) bool {
	if s.orig == nil {
		return true
	}
	c, err := s.compiledSchema()
	if err != nil {
		return false
	}
	return c.Valid(schema.Instance(v))
}

// bases returns complete instances of the side's root schema to build
// witnesses in: the minimal one and the rich one.
func (s *schemaSide) bases() []canon.Value {
	if s.examples != nil {
		return s.examples
	}
	if s.root == nil {
		s.examples = []canon.Value{canon.ObjectValue()}
		return s.examples
	}
	g := &instanceGen{sd: s}
	min := g.value(s.root)
	g.rich = true
	rich := g.value(s.root)
	s.examples = []canon.Value{min}
	if string(canon.AppendJCS(nil, &min)) != string(canon.AppendJCS(nil, &rich)) {
		s.examples = append(s.examples, rich)
	}
	return s.examples
}

// maxWitnessTries bounds validator calls per finding.
const maxWitnessTries = 48

// The witness search of one comparison may validate at most
// witnessFloor + witnessPerStep × (walk steps of the comparison) instance
// nodes in all: proving findings never costs much more than finding them,
// whatever the schema's width or depth.
const (
	witnessFloor   = 50000
	witnessPerStep = 16
)

// spendWitness charges the validation of inst to the comparison's witness
// budget; false when the budget is spent.
func (c *schemaComparison) spendWitness(inst *canon.Value) bool {
	allowed := witnessFloor + witnessPerStep*(walkBudget-*c.budget)
	c.witnessWork += valueNodes(inst)
	if c.witnessWork > allowed {
		c.witnessSpent = true
	}
	return !c.witnessSpent
}

// valueNodes counts the nodes of a JSON value.
func valueNodes(v *canon.Value) int {
	n := 1
	for i := range v.Items {
		n += valueNodes(&v.Items[i])
	}
	for i := range v.Members {
		n += valueNodes(&v.Members[i].Value)
	}
	return n
}

// witness searches a witness for f and records it (or why there is none).
func (c *schemaComparison) witness(f *finding) {
	if hasWitness(f) {
		return // searched already (noSilentChange)
	}
	if f.noWitness != "" {
		f.NoWitness = f.noWitness
		return
	}
	src, dst := c.old, c.new
	if c.p.Direction == Output {
		src, dst = c.new, c.old
	}
	for _, sd := range []*schemaSide{src, dst} {
		if sd.orig == nil {
			continue
		}
		if _, err := sd.compiledSchema(); err != nil {
			f.NoWitness = fmt.Sprintf("the %s schema does not compile: %v", c.sideName(sd), err)
			c.unproven(f)
			return
		}
	}
	if w, ok := c.searchWitness(f, src, dst); ok {
		f.Witness = json.RawMessage(canon.AppendJCS(nil, &w))
		return
	}
	switch {
	case c.witnessSpent:
		f.NoWitness = "the witness search stopped at its budget: proving findings may not cost more than comparing the schemas"
	case c.p.Direction == Output:
		f.NoWitness = "no result was found that the new output schema accepts and the old one rejects"
	default:
		f.NoWitness = "no arguments were found that the old input schema accepts and the new one rejects"
	}
	c.unproven(f)
}

// unproven settles a finding left without a witness: the rules say the
// change narrows (or widens, for output) but no instance proves it, so it
// is undecided, unless its rule documents a reason outside validation.
func (c *schemaComparison) unproven(f *finding) {
	if f.undecided == "" && !f.def.unvalidated {
		f.undecided = "the change was not proven: " + f.NoWitness
	}
	c.undecidedIfNeeded(f)
}

func (c *schemaComparison) undecidedIfNeeded(f *finding) {
	if f.undecided != "" {
		f.Undecided = true
		f.Reason = f.undecided
		if f.Level < Breaking {
			f.Level = Breaking
		}
	}
}

func (c *schemaComparison) sideName(sd *schemaSide) string {
	if sd == c.old {
		return "old"
	}
	return "new"
}

// searchWitness tries candidates until one is accepted by src and rejected
// by dst.
func (c *schemaComparison) searchWitness(f *finding, src, dst *schemaSide) (canon.Value, bool) {
	var locals [][]witnessEdit
	locals = append(locals, f.cands...)
	if f.samples != nil || f.sampleSide != nil {
		// Samples the other side's local keywords reject come first; the
		// rest follow (the local check does not see nested keywords).
		g := &instanceGen{sd: f.sampleSide}
		var later [][]witnessEdit
		dom := f.at.domain()
		for _, v := range g.variants(typedFor(f.samples, dom), 24) {
			if kindOf(&v)&dom == 0 {
				continue // no instance here has that type (a property name is a string)
			}
			if f.reject != nil && admits(f.reject, &v) {
				later = append(later, []witnessEdit{{val: v}})
				continue
			}
			locals = append(locals, []witnessEdit{{val: v}})
		}
		locals = append(locals, later...)
	}
	if len(locals) == 0 {
		locals = [][]witnessEdit{nil}
	}
	tries := 0
	steps := f.at.steps()
	useOld := src == c.old
	for _, regen := range []bool{false, true} {
		for _, base := range src.bases() {
			for _, edits := range locals {
				if tries >= maxWitnessTries {
					return canon.Value{}, false
				}
				tries++
				inst := base.Clone()
				g := &instanceGen{sd: src}
				c.place(&inst, steps, 0, regen, useOld, g, edits)
				// Tool arguments and structured results are objects
				// (MCP 2025-11-25 CallToolRequest, CallToolResult).
				if inst.Kind != canon.Object {
					continue
				}
				if !c.spendWitness(&inst) {
					return canon.Value{}, false
				}
				if src.accepts(&inst) && !dst.accepts(&inst) {
					return inst, true
				}
			}
		}
	}
	return canon.Value{}, false
}

// typedFor returns s limited to the types in dom when s declares no type
// of its own (a propertyNames subschema without "type" still only sees
// strings), so that samples are built of those types; s itself otherwise.
func typedFor(s *canon.Value, dom types) *canon.Value {
	if dom == tAll || s == nil {
		return s
	}
	tv, ok := dom.typeValue()
	if !ok {
		return s
	}
	switch {
	case s.Kind == canon.Bool && s.Bool:
		v := canon.ObjectValue(canon.Member{Key: "type", Value: tv})
		return &v
	case s.Kind == canon.Object && !s.Has("type") && !s.Has("$ref"):
		v := s.Clone()
		v.Set("type", tv)
		return &v
	}
	return s
}

// schemaAt returns the deepest schema of location l on one side, with its
// branch conjuncts merged in.
func schemaAt(l *instLoc, useOld bool) *canon.Value {
	s, extra := l.n, l.nAnd
	if useOld {
		s, extra = l.o, l.oAnd
	}
	if len(extra) == 0 {
		return s
	}
	items := []canon.Value{}
	if s != nil {
		items = append(items, s.Clone())
	}
	for _, e := range extra {
		items = append(items, e.Clone())
	}
	v := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(items...)})
	return &v
}

// place walks cur along steps[i:], creating (or, with regen, rebuilding)
// the containers on the way, and applies edits at the end.
func (c *schemaComparison) place(cur *canon.Value, steps []*instLoc, i int, regen, useOld bool, g *instanceGen, edits []witnessEdit) {
	st := steps[i]
	if i == 0 {
		if regen {
			*cur = g.value(schemaAt(st, useOld))
		}
	}
	if i == len(steps)-1 {
		applyEdits(cur, edits, g)
		return
	}
	next := steps[i+1]
	switch {
	case next.name:
		if cur.Kind != canon.Object {
			*cur = canon.ObjectValue()
		}
		var k canon.Value
		applyEdits(&k, edits, g)
		if k.Kind == canon.String {
			cur.Set(k.Str, g.value(propSchema(schemaAt(st, useOld), k.Str)))
		}
		return
	case next.index >= 0:
		if cur.Kind != canon.Array {
			*cur = canon.ArrayValue()
		}
		for len(cur.Items) <= next.index {
			cur.Items = append(cur.Items, g.value(schemaAt(next, useOld)))
		}
		if regen {
			cur.Items[next.index] = g.value(schemaAt(next, useOld))
		}
		c.place(&cur.Items[next.index], steps, i+1, regen, useOld, g, edits)
	default:
		if cur.Kind != canon.Object {
			*cur = canon.ObjectValue()
		}
		if !cur.Has(next.key) || regen {
			cur.Set(next.key, g.value(schemaAt(next, useOld)))
		}
		c.place(cur.Get(next.key), steps, i+1, regen, useOld, g, edits)
	}
}

func applyEdits(cur *canon.Value, edits []witnessEdit, g *instanceGen) {
	for _, e := range edits {
		if e.key == "" {
			*cur = e.val.Clone()
			continue
		}
		if cur.Kind != canon.Object {
			*cur = canon.ObjectValue()
		}
		if e.del {
			cur.Delete(e.key)
		} else {
			cur.Set(e.key, e.val.Clone())
		}
	}
}

// exampleInstance builds a small instance that validates against s
// (instance.Examples on its normalized form: all required properties
// filled, defaults/examples/enum members preferred), checked with the
// validator; ok is false when none could be built.
func exampleInstance(s *canon.Value) (v any, ok bool) {
	if s == nil {
		return nil, false
	}
	sd := newSide(s)
	c, err := sd.compiledSchema()
	if err != nil {
		return nil, false
	}
	ex := instance.Examples(c, sd.root, sd.resolve, 1)
	if len(ex) == 0 {
		return nil, false
	}
	return ex[0], true
}
