package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/rule"
)

// This file is the schema comparison engine (docs/diff.md#normalization–docs/diff.md#witnesses-and-verification): it walks an
// old and a new JSON Schema side by side and lets every rule family
// (rule_*.go) compare the keywords it owns at each pair of subschemas. The
// tool-level engine (compare.go) calls compareSchemas once per tool and
// direction.
//
// Direction semantics (docs/diff.md#direction): for Input every instance valid under the old
// schema must stay valid (old ⊆ new), so a change that narrows the accepted
// set is breaking and a widening is safe; for Output every instance valid
// under the new schema must have been valid (new ⊆ old), so the levels swap.
// Each rule is declared per direction with its default level; the effect
// (narrows, widens) of a change is a property of the rule.

// schemaPair is one schema comparison: the old and new schema of one tool in
// one direction (Input: old ⊆ new required; Output: new ⊆ old required).
// Old or New may be nil (schema absent). Findings' Path is the JSON Pointer
// of the changed keyword inside the schema, as if local $refs were inlined
// (docs/diff.md#output-and-exit-codes's example "/properties/mode/enum").
type schemaPair struct {
	Tool      string
	Direction Direction
	Old, New  *canon.Value
	Opts      *Options
	// disabled are the rules whose findings are dropped (compareWith).
	disabled map[string]bool
}

// The effects of schema rules (rule.Effect), by their short names here.
const (
	annotates = rule.Annotates
	narrows   = rule.Narrows
	widens    = rule.Widens
	reshapes  = rule.Reshapes
)

// schemaRuleDef is a catalog entry of a schema rule; its Effect orients
// witnesses and decides subsumption.
type schemaRuleDef struct {
	Rule
	// kind is the change the rule names (nil for verify-counterexample,
	// which no handler emits).
	kind *schemaKind
	// unvalidated is set for a rule whose breaking or facade findings may
	// carry no witness for a reason outside validation (the server may
	// ignore an argument, the validator does not assert format); the
	// purpose says which. Findings of other rules have a witness or are
	// marked undecided.
	unvalidated bool
}

// kindDir names one schema rule by value: a kind in one direction.
type kindDir struct {
	kind *schemaKind
	dir  Direction
}

// withoutWitness marks the rule definitions named by only (all of defs
// when none is named) as documenting a non-validation reason for findings
// without a witness; the reason (a clause) is appended to each purpose,
// which stays one sentence.
func withoutWitness(reason string, defs []schemaRuleDef, only ...kindDir) []schemaRuleDef {
	out := slices.Clone(defs)
	for i, d := range out {
		if len(only) > 0 && !slices.Contains(only, kindDir{d.kind, d.Direction}) {
			continue
		}
		d.unvalidated = true
		d.Purpose = strings.TrimSuffix(d.Purpose, ".") + "; " + reason
		out[i] = d
	}
	return out
}

// ruleHandler compares, for one pair of subschemas, the keywords its family
// owns, and reports findings through p.emit. Every family uses it.
type ruleHandler func(p *subPair)

// ruleFamily is one rule file's declaration: its rules, declared once, and the
// handler that finds them.
type ruleFamily struct {
	name  string
	rules []schemaRuleDef
	check ruleHandler
}

// Tags (docs/diff.md#levels-and-rules).
var (
	schemaTagsExistence     = []string{"existence"}
	schemaTagsRequiredness  = []string{"requiredness"}
	schemaTagsType          = []string{"type"}
	schemaTagsConstraint    = []string{"constraint"}
	schemaTagsValues        = []string{"values"}
	schemaTagsStructure     = []string{"structure"}
	schemaTagsDocumentation = []string{"documentation"}
)

// kindRule declares the schema rule of kind k in direction d: its id is
// "input-" or "output-" and the kind's name.
func kindRule(k *schemaKind, d Direction, lvl Level, eff rule.Effect, tags []string, purpose string) schemaRuleDef {
	r := diffRule(rule.ID(string(d)+"-"+k.name), lvl, d, tags, purpose)
	r.Effect = eff
	return schemaRuleDef{Rule: r, kind: k}
}

// schemaRule declares a schema rule no handler emits by kind (the
// verifier's); the direction is read from the id's prefix ("input-",
// "output-"; the verifier's rule is listed as input).
func schemaRule(id rule.ID, lvl Level, eff rule.Effect, tags []string, purpose string) schemaRuleDef {
	d := Input
	if strings.HasPrefix(string(id), "output-") {
		d = Output
	}
	r := diffRule(id, lvl, d, tags, purpose)
	r.Effect = eff
	return schemaRuleDef{Rule: r}
}

// families lists the rule families in the order their handlers run at each
// pair of subschemas. Structure runs before requiredness so that renamed
// properties are known when required entries are compared.
func families() []*ruleFamily { return familyList }

// familyList is filled in init: the families' handlers reach the walk,
// which reads the list, so a variable initializer would be a cycle.
var familyList []*ruleFamily

func init() {
	familyList = []*ruleFamily{&typeFamily, &enumFamily, &constraintFamily, &structureFamily, &requiredFamily, &compositionFamily}
}

var (
	schemaCatalogOnce sync.Once
	schemaCatalogList []Rule
	schemaCatalogByID map[string]*schemaRuleDef
	// schemaCatalogErr says which kinds and declarations do not match
	// (linkSchemaKinds); TestRuleModelSchemaKinds requires it nil.
	schemaCatalogErr error
)

func loadSchemaCatalog() {
	schemaCatalogOnce.Do(func() {
		schemaCatalogByID = map[string]*schemaRuleDef{}
		add := func(defs []schemaRuleDef) {
			for i := range defs {
				d := &defs[i]
				if _, dup := schemaCatalogByID[string(d.ID)]; dup {
					panic("diff: duplicate schema rule " + string(d.ID))
				}
				schemaCatalogByID[string(d.ID)] = d
				schemaCatalogList = append(schemaCatalogList, d.Rule)
			}
		}
		for _, f := range families() {
			add(f.rules)
		}
		add(schemaExtraRules)
		add(schemaAnnotationRules)
		add(verifyRules)
		schemaCatalogErr = linkSchemaKinds(schemaCatalogByID)
	})
}

// schemaRules returns the catalog entries of the schema rules.
func schemaRules() []Rule {
	loadSchemaCatalog()
	out := make([]Rule, len(schemaCatalogList))
	for i, r := range schemaCatalogList {
		r.Tags = slices.Clone(r.Tags)
		out[i] = r
	}
	return out
}

// schemaExtraRules are the whole-schema rules found before or after the
// walk.
var schemaExtraRules = []schemaRuleDef{
	kindRule(kindSchemaRewritten, Input, Safe, annotates, schemaTagsDocumentation,
		"The input schema is spelled differently, no rule finds a change in what it accepts, and no instance telling the two apart was found: an equivalent spelling as far as the engine can tell (a notice; a found instance makes it input-composition-changed instead)."),
	kindRule(kindSchemaRewritten, Output, Safe, annotates, schemaTagsDocumentation,
		"The output schema is spelled differently, no rule finds a change in what it allows, and no instance telling the two apart was found: an equivalent spelling as far as the engine can tell (a notice; a found instance makes it output-composition-changed instead)."),
	kindRule(kindOtherKeywordChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"A keyword of the input schema that validation does not read and no other rule covers changed (readOnly, writeOnly, $comment, contentMediaType, an extension keyword): validation is unchanged (a notice)."),
	kindRule(kindOtherKeywordChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"A keyword of the output schema that validation does not read and no other rule covers changed (readOnly, writeOnly, $comment, contentMediaType, an extension keyword): validation is unchanged (a notice)."),
	kindRule(kindSchemaAdded, Output, Safe, narrows, schemaTagsExistence,
		"An outputSchema appears where there was none: results were unconstrained before, so clients lose nothing."),
	kindRule(kindSchemaRemoved, Output, Breaking, widens, schemaTagsExistence,
		"The outputSchema is removed: clients that validate structured results against it can no longer rely on any shape."),
}

// maxWalkDepth bounds the recursion of one comparison; deeper schemas are
// reported undecided rather than compared. It is the parser's nesting
// limit, so every schema that loads is compared to its full depth.
const maxWalkDepth = canon.MaxDepth

// walkBudget bounds the subschema pairs one comparison visits, subsumption
// checks included.
const walkBudget = 200000

// compareSchemas returns the findings of one schema comparison, each with
// its witness (or NoWitness) already checked by the validator.
func compareSchemas(p schemaPair) []Change {
	if p.Opts == nil {
		p.Opts = &Options{}
	}
	o, oOK := schemaArg(p.Old, p.Direction)
	n, nOK := schemaArg(p.New, p.Direction)
	if !oOK || !nOK {
		// Not a schema at all (e.g. "inputSchema": null): the tool-level
		// engine reports the tool invalid; there is nothing to compare.
		return nil
	}
	switch {
	case o == nil && n == nil:
		return nil
	case o == nil || n == nil:
		if p.Direction != Output {
			return nil // an absent inputSchema is invalid MCP (tool-invalid)
		}
		c := newComparison(p, o, n)
		if o == nil {
			c.emitWhole(kindSchemaAdded, "the tool now declares an outputSchema; results were unconstrained before", n)
		} else {
			c.emitWhole(kindSchemaRemoved, "the tool no longer declares an outputSchema; clients that validate results lose every guarantee", o)
		}
		c.finish()
		return c.changes()
	}
	if bytes.Equal(canon.AppendSchema(nil, o), canon.AppendSchema(nil, n)) {
		return nil
	}
	c := newComparison(p, o, n)
	at := rootLoc(c.old.root, c.new.root)
	at.excl = tAll &^ tObject
	c.walk(c.old.root, c.new.root, "", at, false)
	c.compareAnnotations(c.old.valid, c.new.valid, "")
	c.noSilentChange(at)
	c.finish()
	return c.changes()
}

// noSilentChange enforces the engine's invariant: when the normalized
// schemas differ, the report holds a finding. Without one from the rules,
// a difference only in keywords validation ignores is reported as
// <dir>-other-keyword-changed (safe); any other difference is a change no
// rule identified, undecided unless a witness decides it.
func (c *schemaComparison) noSilentChange(at *instLoc) {
	for _, f := range c.found {
		if f.def != nil || f.disabled {
			return
		}
	}
	if bytes.Equal(orderFreeKey(c.old.root), orderFreeKey(c.new.root)) {
		return
	}
	ov, nv := validationOnly(c.old.root), validationOnly(c.new.root)
	if bytes.Equal(canon.AppendSchema(nil, &ov), canon.AppendSchema(nil, &nv)) {
		f := c.emitAt(kindOtherKeywordChanged, "", at, false, c.old.root, c.new.root,
			"a keyword validation does not read changed (readOnly, writeOnly, $comment, contentMediaType, an extension keyword, …)")
		setNotice(f, "validation is unchanged; review what the changed keyword tells clients and the model")
		return
	}
	c.emitUndecided("", at, false, c.old.root, c.new.root, "the normalized schemas differ, but no rule identified the change")
	f := c.found[len(c.found)-1]
	c.witness(f)
	if hasWitness(f) {
		return // a change no rule names, proven: a rule is missing
	}
	d := kindSchemaRewritten.def(c.p.Direction)
	f.def, f.Rule, f.Level = d, string(d.ID), levelOf(d.Rule)
	f.Undecided, f.Reason, f.NoWitness, f.undecided = false, "", "", ""
	f.Message = "the schema is spelled differently, no rule finds a change in what it accepts, and no instance telling the two apart was found"
	setNotice(f, "an equivalent spelling, as far as the engine can tell; review the change")
}

func hasWitness(f *finding) bool {
	return len(f.Witness) > 0 && string(f.Witness) != "null"
}

// orderFreeKey is the canonical form of a normalized schema with the
// branches of every allOf, anyOf and oneOf in a fixed order (their order
// does not matter to validation): equal keys, equal schemas.
func orderFreeKey(s *canon.Value) []byte {
	v := s.Clone()
	var sortBranches func(x *canon.Value)
	sortBranches = func(x *canon.Value) {
		eachChild(x, sortBranches)
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if a := x.Get(kw); a != nil && a.Kind == canon.Array {
				slices.SortFunc(a.Items, func(p, q canon.Value) int {
					return bytes.Compare(canon.AppendSchema(nil, &p), canon.AppendSchema(nil, &q))
				})
			}
		}
	}
	sortBranches(&v)
	return canon.AppendSchema(nil, &v)
}

// validationOnly returns a copy of schema s without the keywords validation
// does not read (annotations and unknown keywords), at every depth.
func validationOnly(s *canon.Value) canon.Value {
	v := s.Clone()
	var strip func(x *canon.Value)
	strip = func(x *canon.Value) {
		if x.Kind != canon.Object {
			return
		}
		kept := x.Members[:0]
		for _, m := range x.Members {
			if validationKeyword(m.Key) {
				kept = append(kept, m)
			}
		}
		x.Members = kept
		eachChild(x, strip)
	}
	strip(&v)
	return v
}

// validationKeyword reports whether kw is a keyword validation reads.
func validationKeyword(kw string) bool {
	if instance.AnnotationKeyword[kw] && kw != "$defs" && kw != "definitions" {
		return false
	}
	return instance.KnownKeyword[kw] || typeKeyword(kw) != 0 || slices.Contains(mapSchemaKW, kw) ||
		slices.Contains(arraySchemaKW, kw) || slices.Contains(singleSchemaKW, kw)
}

// objectRoot limits the normalized root of a tool schema to objects: tool
// arguments and structured results are JSON objects (MCP 2025-11-25,
// CallToolRequest params.arguments and CallToolResult structuredContent), so
// the root's type is "object" whether it says so or not, and a root that
// allows no object accepts nothing. Validation against the schema as given
// (witnesses) is unchanged; every instance it is asked about is an object.
func objectRoot(sd *schemaSide) {
	r := sd.root
	if r == nil {
		return
	}
	if r.Kind == canon.Bool {
		if r.Bool {
			*r = canon.ObjectValue(canon.Member{Key: "type", Value: canon.StringValue("object")})
		}
		return
	}
	if r.Kind != canon.Object || !knownTypeNames(r.Get("type")) {
		return
	}
	if declaredTypes(r.Get("type"))&tObject == 0 {
		*r = canon.BoolValue(false)
		return
	}
	r.Set("type", canon.StringValue("object"))
	dropOtherTypeKeywords(r, tObject)
	// A "not" or "if" that no object matches constrains nothing here.
	if nt := r.Get("not"); nt != nil && typesOf(nt)&tObject == 0 {
		r.Delete("not")
	}
	if cond := r.Get("if"); cond != nil && typesOf(cond)&tObject == 0 {
		els := r.Get("else")
		var e canon.Value
		if els != nil {
			e = els.Clone()
		}
		r.Delete("if")
		r.Delete("then")
		r.Delete("else")
		if els != nil {
			appendAllOf(r, e)
		}
	}
}

// dropOtherTypeKeywords deletes the keywords of s that apply only to types
// outside t (minLength beside type object constrains nothing).
func dropOtherTypeKeywords(s *canon.Value, t types) {
	kept := s.Members[:0]
	for _, m := range s.Members {
		if k := typeKeyword(m.Key); k != 0 && k&t == 0 {
			continue
		}
		kept = append(kept, m)
	}
	s.Members = kept
}

// schemaArg returns the schema of one side: nil when absent (or JSON null
// for an outputSchema), ok false when the value is not a schema at all.
func schemaArg(v *canon.Value, d Direction) (*canon.Value, bool) {
	if v == nil {
		return nil, true
	}
	switch v.Kind {
	case canon.Object, canon.Bool:
		return v, true
	case canon.Null:
		return nil, d == Output
	}
	return nil, false
}

// schemaComparison is the state of one compareSchemas call.
type schemaComparison struct {
	p        schemaPair
	old, new *schemaSide
	found    []*finding
	seen     map[refKey]bool
	depth    int
	// silent comparisons (subsumption checks) only collect findings.
	silent bool
	// budget bounds the walk steps of one comparison and the subsumption
	// checks it runs (shared).
	budget *int
	// witnessWork counts the instance nodes validated by witness searches;
	// witnessSpent is set once that exceeds its budget (spendWitness).
	witnessWork  int
	witnessSpent bool
}

type refKey struct {
	o, n *canon.Value
	inv  bool
	excl types // the location's excluded types: a pair means less in a narrower domain
}

func newComparison(p schemaPair, o, n *canon.Value) *schemaComparison {
	b := walkBudget
	c := &schemaComparison{p: p, seen: map[refKey]bool{}, budget: &b}
	c.old = newSide(o)
	c.new = newSide(n)
	objectRoot(c.old)
	objectRoot(c.new)
	return c
}

// finding is a Change under construction, with what the witness search
// needs.
type finding struct {
	Change
	def *schemaRuleDef
	at  *instLoc
	inv bool
	// cands are rule-specific witness candidates: edits applied at the
	// location (after a base instance is built).
	cands [][]witnessEdit
	// samples, when set, is the local subschema whose sample values are
	// tried at the location (after cands); sampleSide says which side it
	// belongs to.
	samples    *canon.Value
	sampleSide *schemaSide
	// reject, when set, filters local samples: only values it rejects are
	// tried (a cheap pre-check of the target side).
	reject *canon.Value
	// undecided is the reason to report when no witness is found and the
	// change could not be decided by reasoning alone.
	undecided string
	// noWitness is a preset reason: no witness can exist.
	noWitness string
	// disabled marks a finding of a rule a test disabled (def is nil).
	disabled bool
}

// subPair is one pair of resolved subschemas being compared.
type subPair struct {
	c    *schemaComparison
	o, n *canon.Value // resolved; boolean schemas are kept as they are
	path string
	at   *instLoc
	inv  bool // inside "not": effects are inverted
	// to, tn are the effective type sets.
	to, tn types
	// renamed maps new property names to the old names they replace
	// (filled by the structure family, read by the requiredness family).
	renamed map[string]string
}

// getKW returns keyword kw of schema s; nil when absent or for boolean
// schemas.
func getKW(s *canon.Value, kw string) *canon.Value {
	if s == nil || s.Kind != canon.Object {
		return nil
	}
	return s.Get(kw)
}

// walk compares old subschema o with new subschema n at schema path path
// and instance location at.
func (c *schemaComparison) walk(o, n *canon.Value, path string, at *instLoc, inv bool) {
	c.depth++
	defer func() { c.depth-- }()
	*c.budget--
	if *c.budget == -1 {
		c.emitUndecided(path, at, inv, o, n, fmt.Sprintf("the schemaComparison took more than %d steps and was stopped", walkBudget))
	}
	if *c.budget < 0 {
		return
	}
	if c.depth > maxWalkDepth {
		c.emitUndecided(path, at, inv, o, n, fmt.Sprintf("schemas nested deeper than %d levels are not compared", maxWalkDepth))
		return
	}
	ro, okO := c.old.resolve(o)
	rn, okN := c.new.resolve(n)
	if !okO || !okN {
		if !bytes.Equal(canon.AppendSchema(nil, o), canon.AppendSchema(nil, n)) {
			c.emitUndecided(path, at, inv, o, n, "a $ref that is not a local JSON Pointer (or does not resolve) cannot be compared")
		}
		return
	}
	if ro != o || rn != n {
		k := refKey{ro, rn, inv, at.excl}
		if c.seen[k] {
			return // recursive schema: this pair is being compared already
		}
		c.seen[k] = true
	}
	o, n = ro, rn
	if sameSchema(c, o, n) {
		return
	}
	// Only the types an instance here can have count (a propertyNames
	// subschema sees strings only); the subschemas met on the way to the
	// same instance see only the types this pair allows.
	dom := at.domain()
	p := &subPair{c: c, o: o, n: n, path: path, inv: inv}
	p.to, p.tn = typesOf(o)&dom, typesOf(n)&dom
	p.at = at.within(p.to | p.tn)
	if !inv {
		if kw, onOld := asymmetricDisjunction(o, n); kw != "" {
			if onOld == (c.p.Direction == Input) {
				decomposeDisjunction(p, kw, onOld)
			} else {
				againstDisjunction(p, kw, onOld)
			}
			return
		}
	}
	runFamilies(p)
}

func runFamilies(p *subPair) {
	for _, f := range families() {
		f.check(p)
	}
}

// subset reports whether every instance of the types dom valid under a
// (on side as) is valid under b (on side bs), as far as the rules can
// tell: a silent input comparison of a against b finds nothing at facade
// level or above and nothing undecided.
func (c *schemaComparison) subset(a *canon.Value, as *schemaSide, b *canon.Value, bs *schemaSide, dom types) bool {
	if isTrue(b) || isFalse(a) {
		return true
	}
	sc := &schemaComparison{
		p:      schemaPair{Tool: c.p.Tool, Direction: Input, Opts: c.p.Opts, disabled: c.p.disabled},
		old:    as,
		new:    bs,
		seen:   map[refKey]bool{},
		silent: true,
		budget: c.budget,
		depth:  c.depth,
	}
	at := rootLoc(a, b)
	at.excl = tAll &^ dom
	sc.walk(a, b, "", at, false)
	for _, f := range sc.found {
		if f.def != nil && (f.Level >= Facade || f.undecided != "") {
			return false
		}
	}
	return true
}

// sameSchema reports whether two subschemas are the same text: equal
// canonical bytes, and either no local $ref inside or equal $defs on both
// sides (so equal references mean equal targets).
func sameSchema(c *schemaComparison, o, n *canon.Value) bool {
	if o == nil || n == nil {
		return o == n
	}
	a := canon.AppendSchema(nil, o)
	b := canon.AppendSchema(nil, n)
	if !bytes.Equal(a, b) {
		return false
	}
	if !bytes.Contains(a, []byte(`"$ref"`)) {
		return true
	}
	return c.old.defsKey == c.new.defsKey && refsOnlyToDefs(a)
}

// refsOnlyToDefs reports whether every "$ref" in canonical JSON points into
// $defs (whose equality the caller checked), so equal text means equal
// targets.
func refsOnlyToDefs(b []byte) bool {
	key := []byte(`"$ref":"`)
	for {
		i := bytes.Index(b, key)
		if i < 0 {
			return true
		}
		b = b[i+len(key):]
		if !bytes.HasPrefix(b, []byte("#/$defs/")) {
			return false
		}
	}
}

// emit reports a finding of kind k (e.g. kindEnumValueRemoved) in the
// direction compared at path. oldV and newV are the keyword values (nil:
// absent).
func (p *subPair) emit(k *schemaKind, path string, oldV, newV *canon.Value, msg string) *finding {
	return p.c.emitAt(k, path, p.at, p.inv, oldV, newV, msg)
}

func (c *schemaComparison) emitAt(k *schemaKind, path string, at *instLoc, inv bool, oldV, newV *canon.Value, msg string) *finding {
	d := k.def(c.p.Direction)
	if d == nil {
		// A kind declared for the other direction only: its handler
		// checks the direction first, so this is a bug in a rule; report
		// it undecided rather than drop it.
		return c.emitAt(kindCompositionChanged, path, at, false, oldV, newV, "the schema changed in a way no "+string(c.p.Direction)+" rule covers: "+msg)
	}
	if c.p.disabled[string(d.ID)] {
		c.found = append(c.found, &finding{disabled: true})
		return &finding{}
	}
	if inv {
		// Inside "not" a narrowing of the subschema widens the whole schema
		// and vice versa: report it as a composition change with the
		// inverted effect.
		switch d.Effect {
		case narrows:
			d = kindCompositionWidened.def(c.p.Direction)
		case widens:
			d = kindCompositionNarrowed.def(c.p.Direction)
		case reshapes:
			d = kindCompositionChanged.def(c.p.Direction)
		default:
			return &finding{} // annotations inside not say nothing
		}
		msg = "inside not: " + msg
	}
	f := &finding{def: d, at: at, inv: inv}
	f.Change = Change{
		Rule:      string(d.ID),
		Level:     levelOf(d.Rule),
		Direction: c.p.Direction,
		Tool:      c.p.Tool,
		Path:      path,
		Old:       schemaJSON(oldV),
		New:       schemaJSON(newV),
		Message:   msg,
		Witness:   json.RawMessage("null"),
	}
	c.found = append(c.found, f)
	return f
}

// emitUndecided reports a change the engine cannot decide by reasoning; the
// witness search may still decide it.
func (c *schemaComparison) emitUndecided(path string, at *instLoc, inv bool, o, n *canon.Value, reason string) {
	f := c.emitAt(kindCompositionChanged, path, at, false, o, n, "the schema changed in a way that is not analyzed keyword by keyword: "+reason)
	f.undecided = reason
	f.samples, f.sampleSide = c.sampleSchemaAt(at, inv)
}

// sampleSchemaAt returns the local schema samples come from for a finding
// at at: the source side's deepest schema there (old for input, new for
// output; the other side inside not).
func (c *schemaComparison) sampleSchemaAt(at *instLoc, inv bool) (*canon.Value, *schemaSide) {
	src := c.p.Direction == Input
	if inv {
		src = !src
	}
	if src {
		return at.o, c.old
	}
	return at.n, c.new
}

// emitWhole reports a whole-schema finding (schema added or removed).
func (c *schemaComparison) emitWhole(k *schemaKind, msg string, v *canon.Value) {
	d := k.def(c.p.Direction)
	f := &finding{def: d, at: rootLoc(c.old.root, c.new.root)}
	var ov, nv *canon.Value
	if c.old.orig != nil {
		ov = v
	} else {
		nv = v
	}
	f.Change = Change{Rule: string(d.ID), Level: levelOf(d.Rule), Direction: c.p.Direction, Tool: c.p.Tool, Path: "",
		Old: schemaJSON(ov), New: schemaJSON(nv), Message: msg, Witness: json.RawMessage("null")}
	c.found = append(c.found, f)
}

// schemaJSON is the canonical JSON of a schema or keyword value (null when
// absent).
func schemaJSON(v *canon.Value) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	return json.RawMessage(canon.AppendSchema(nil, v))
}

// finish adjusts levels for options, searches witnesses and runs the
// verifier.
func (c *schemaComparison) finish() {
	if c.silent {
		return
	}
	for _, f := range c.found {
		if f.def == nil {
			continue
		}
		if f.Level >= Facade {
			c.witness(f)
		}
	}
	if c.p.Opts.Verify > 0 {
		c.verify()
	}
}

// changes returns the findings as Changes, deduplicated and in a
// deterministic order.
func (c *schemaComparison) changes() []Change {
	out := make([]Change, 0, len(c.found))
	seen := map[string]bool{}
	for _, f := range c.found {
		if f.def == nil {
			continue
		}
		key := f.Rule + "\x00" + f.Path + "\x00" + string(f.Old) + "\x00" + string(f.New) + "\x00" + f.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, f.Change)
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		if c := canon.CompareKeys(a.Path, b.Path); c != 0 {
			return c
		}
		return canon.CompareKeys(a.Rule, b.Rule)
	})
	return out
}

// facadeBlock builds a suggestion for the tool of the comparison.
func (c *schemaComparison) suggest(f *finding, b facade.Block) {
	f.Facade = &Suggestion{Tool: c.p.Tool, Block: b}
}

// pathKW appends a keyword (or pointer tokens) to a schema path.
func pathKW(path string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(path)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(canon.EscapePointer(t))
	}
	return b.String()
}

// quoteJSON renders a JSON value for messages.
func quoteJSON(v *canon.Value) string {
	if v == nil {
		return "(none)"
	}
	b := canon.AppendJCS(nil, v)
	if len(b) > 80 {
		return string(b[:77]) + "…"
	}
	return string(b)
}

// whereIs names the location of a path for messages: the pointer, or "the
// schema root".
func whereIs(path string) string {
	if path == "" {
		return "the schema root"
	}
	return path
}

// propWhere names property k of the object at path for messages:
// `property "k"` at the root, `property "k" of /properties/a` below it.
func propWhere(path, k string) string {
	if path == "" {
		return fmt.Sprintf("property %q", k)
	}
	return fmt.Sprintf("property %q of %s", k, path)
}
