package diff

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/schema"
)

// This file holds the schema-reasoning normalizations of docs/diff.md#normalization, on
// top of canon.NormalizeTool's syntactic ones, applied to a private copy of
// each schema before the walk:
//
//   - OpenAPI "nullable: true" adds "null" to "type" (also in the copy that
//     witnesses are validated against, so both agree on what it means);
//   - a "type" array is sorted and deduplicated, "integer" dropped beside
//     "number";
//   - an anyOf (or oneOf) whose branches each allow one distinct type family
//     becomes one schema with a type array (so ["string","null"] equals
//     anyOf [{type: string}, {type: null}]);
//   - draft-07 tuple "items": […] plus "additionalItems" becomes
//     "prefixItems" plus "items"; draft-04 boolean exclusive bounds become
//     numbers; draft-07 "dependencies" becomes dependentRequired and
//     dependentSchemas;
//   - local $refs are inlined unless recursive (a recursive one is resolved
//     during the walk, with a cycle guard), so moving a subschema between
//     inline and $defs is no change;
//   - allOf branches are merged into their parent where the merge is exact;
//   - keywords with no effect (additionalProperties: true, minItems: 0, …)
//     are dropped.

// schemaSide is one schema of a comparison.
type schemaSide struct {
	// orig is the schema as given; valid is orig with the dialect rewrite
	// (nullable), compiled to check witnesses; root is the semantically
	// normalized copy the walk reads.
	orig, valid, root *canon.Value
	draft             int
	defsKey           string
	// refs caches normalized $ref targets by reference string.
	refs map[string]*canon.Value

	compiled   *schema.Compiled
	compileErr error
	compiledOK bool

	examples []canon.Value // cached base instances
}

// inlineBudget bounds the number of values inlining may copy per side.
const inlineBudget = 50000

func newSide(v *canon.Value) *schemaSide {
	s := &schemaSide{orig: v, refs: map[string]*canon.Value{}}
	if v == nil {
		return s
	}
	s.draft = draftOf(v)
	val := v.Clone()
	rewriteNullable(&val)
	s.valid = &val
	if d := val.Get("$defs"); d != nil {
		s.defsKey = string(canon.AppendSchema(nil, d))
	}
	n := &normalizer{src: s.valid, draft: s.draft, budget: inlineBudget}
	root := n.inline(s.valid, nil)
	n.normalize(&root)
	if root.Kind == canon.Object {
		root.Delete("$defs")
		root.Delete("definitions")
	}
	s.root = &root
	return s
}

// draftOf reads the draft of a schema from "$schema": 4, 6, 7, 2019 or
// 2020 (the default, as MCP 2025-11-25 specifies).
func draftOf(v *canon.Value) int {
	sv := v.Get("$schema")
	if sv == nil || sv.Kind != canon.String {
		return 2020
	}
	switch u := sv.Str; {
	case strings.Contains(u, "draft-04"):
		return 4
	case strings.Contains(u, "draft-06"):
		return 6
	case strings.Contains(u, "draft-07"):
		return 7
	case strings.Contains(u, "2019-09"):
		return 2019
	}
	return 2020
}

// resolve follows $ref chains to a schema that is not a plain reference;
// ok is false when a reference does not resolve.
func (s *schemaSide) resolve(v *canon.Value) (*canon.Value, bool) {
	for hops := 0; hops < 32; hops++ {
		ref := pureRef(v)
		if ref == "" {
			return v, true
		}
		t := s.target(ref)
		if t == nil {
			return v, false
		}
		v = t
	}
	return v, false
}

// pureRef returns the $ref of a schema that is only a reference (plus
// annotations), or "".
func pureRef(v *canon.Value) string {
	if v == nil || v.Kind != canon.Object {
		return ""
	}
	r := v.Get("$ref")
	if r == nil || r.Kind != canon.String {
		return ""
	}
	for _, m := range v.Members {
		if m.Key != "$ref" && !instance.AnnotationKeyword[m.Key] {
			return ""
		}
	}
	return r.Str
}

// target returns the normalized target of a local reference, or nil.
func (s *schemaSide) target(ref string) *canon.Value {
	if t, ok := s.refs[ref]; ok {
		return t
	}
	s.refs[ref] = nil
	raw := lookupRef(s.valid, ref)
	if raw == nil {
		return nil
	}
	n := &normalizer{src: s.valid, draft: s.draft, budget: inlineBudget}
	v := n.inline(raw, []string{ref})
	n.normalize(&v)
	s.refs[ref] = &v
	return &v
}

// lookupRef resolves a local reference ("#", "#/$defs/a", percent-encoded
// per RFC 3986 and escaped per RFC 6901) in root; nil when it is not local
// or does not resolve.
func lookupRef(root *canon.Value, ref string) *canon.Value {
	if root == nil || !strings.HasPrefix(ref, "#") {
		return nil
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil
	}
	return root.At(frag) // nil for an anchor: not supported
}

// rewriteNullable applies the OpenAPI "nullable" dialect in place:
// nullable: true adds "null" to a present "type"; the keyword is dropped.
func rewriteNullable(root *canon.Value) {
	eachSchema(root, func(s *canon.Value) {
		nv := s.Get("nullable")
		if nv == nil || nv.Kind != canon.Bool {
			return
		}
		if nv.Bool {
			if t := s.Get("type"); t != nil {
				tt := declaredTypes(t)
				if tt != tAll && tt&tNull == 0 {
					items := []canon.Value{canon.StringValue("null")}
					if t.Kind == canon.String {
						items = append(items, *t)
					} else if t.Kind == canon.Array {
						items = append(items, t.Items...)
					}
					s.Set("type", canon.ArrayValue(items...))
				}
			}
		}
		s.Delete("nullable")
	})
}

// Keyword tables (JSON Schema 2020-12 Core §10, Validation §6; draft-07 for
// items arrays, additionalItems and dependencies).
var (
	singleSchemaKW = []string{"additionalProperties", "unevaluatedProperties", "propertyNames", "items", "additionalItems", "unevaluatedItems", "contains", "not", "if", "then", "else", "contentSchema"}
	arraySchemaKW  = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	mapSchemaKW    = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// eachSchema calls fn for s and every subschema below it, parents first.
func eachSchema(s *canon.Value, fn func(*canon.Value)) {
	if s.Kind != canon.Object {
		return
	}
	fn(s)
	eachChild(s, func(c *canon.Value) { eachSchema(c, fn) })
}

// eachChild calls fn for every direct subschema of s.
func eachChild(s *canon.Value, fn func(*canon.Value)) {
	if s.Kind != canon.Object {
		return
	}
	for i := range s.Members {
		m := &s.Members[i]
		switch {
		case slices.Contains(mapSchemaKW, m.Key):
			if m.Value.Kind == canon.Object {
				for j := range m.Value.Members {
					v := &m.Value.Members[j].Value
					if v.Kind == canon.Object || v.Kind == canon.Bool {
						fn(v)
					}
				}
			}
		case m.Value.Kind == canon.Array && slices.Contains(arraySchemaKW, m.Key):
			for j := range m.Value.Items {
				fn(&m.Value.Items[j])
			}
		case slices.Contains(singleSchemaKW, m.Key):
			fn(&m.Value)
		}
	}
}

type normalizer struct {
	src    *canon.Value
	draft  int
	budget int
}

// inline returns a copy of v with every local, non-recursive $ref replaced
// by a copy of its target (stack holds the references being expanded).
func (n *normalizer) inline(v *canon.Value, stack []string) canon.Value {
	n.budget--
	if v.Kind != canon.Object {
		return v.Clone()
	}
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, len(v.Members))}
	for _, m := range v.Members {
		switch {
		case m.Key == "$defs" || m.Key == "definitions":
			continue // reached through references only
		case slices.Contains(mapSchemaKW, m.Key) && m.Value.Kind == canon.Object:
			mv := canon.Value{Kind: canon.Object, Members: make([]canon.Member, len(m.Value.Members))}
			for j, sm := range m.Value.Members {
				mv.Members[j] = canon.Member{Key: sm.Key, Value: n.inlineChild(&sm.Value, stack)}
			}
			mv.IndexMembers()
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: mv})
		case m.Value.Kind == canon.Array && slices.Contains(arraySchemaKW, m.Key):
			av := canon.Value{Kind: canon.Array, Items: make([]canon.Value, len(m.Value.Items))}
			for j := range m.Value.Items {
				av.Items[j] = n.inlineChild(&m.Value.Items[j], stack)
			}
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: av})
		case slices.Contains(singleSchemaKW, m.Key):
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: n.inlineChild(&m.Value, stack)})
		default:
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: m.Value.Clone()})
		}
	}
	ref := out.Get("$ref")
	if ref == nil || ref.Kind != canon.String {
		return out
	}
	target := lookupRef(n.src, ref.Str)
	if target == nil || slices.Contains(stack, ref.Str) || n.budget <= 0 {
		return out // unresolvable (reported during the walk) or recursive
	}
	t := n.inline(target, append(slices.Clone(stack), ref.Str))
	out.Delete("$ref")
	if onlyAnnotations(&out) {
		return keepAnnotations(t, &out)
	}
	if n.draft < 2019 {
		// Draft-07 and earlier ignore the siblings of $ref, but validators
		// still apply some of them (see validatedRefSiblings).
		kept, ok := validatedRefSiblings(&out, n.draft)
		if !ok {
			return keepAnnotations(t, &out)
		}
		return canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(keepAnnotations(t, &out), kept)})
	}
	return canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(t, out)})
}

// refSiblingKW lists, per draft, the keywords beside a $ref that the
// validator mcpctl uses (jsonschema/v6, also in serve and replay) still
// applies although draft-06 and draft-07 say to ignore them: it checks
// const before following the reference and stops there.
var refSiblingKW = map[int][]string{
	6: {"const"},
	7: {"const"},
}

// validatedRefSiblings returns the siblings of a draft-06/07 $ref that a
// validator applies, as one schema; false when there are none.
func validatedRefSiblings(site *canon.Value, draft int) (canon.Value, bool) {
	kept := canon.ObjectValue()
	for _, k := range refSiblingKW[draft] {
		if v := site.Get(k); v != nil {
			kept.Set(k, v.Clone())
		}
	}
	return kept, len(kept.Members) > 0
}

func (n *normalizer) inlineChild(v *canon.Value, stack []string) canon.Value {
	if v.Kind == canon.Object {
		return n.inline(v, stack)
	}
	return v.Clone()
}

// keepAnnotations copies the description (and title) of a reference site
// onto its inlined target, where the target has none.
func keepAnnotations(t canon.Value, site *canon.Value) canon.Value {
	if t.Kind != canon.Object {
		return t
	}
	for _, k := range []string{"description", "title", "default"} {
		if v := site.Get(k); v != nil && !t.Has(k) {
			t.Set(k, v.Clone())
		}
	}
	return t
}

func onlyAnnotations(v *canon.Value) bool {
	for _, m := range v.Members {
		if !instance.AnnotationKeyword[m.Key] {
			return false
		}
	}
	return true
}

// normalize rewrites v in place, children first.
func (n *normalizer) normalize(v *canon.Value) {
	if v.Kind != canon.Object {
		return
	}
	eachChild(v, n.normalize)
	n.node(v)
}

// node applies the one-node rewrites; it may replace *v entirely.
func (n *normalizer) node(v *canon.Value) {
	draft4Exclusive(v)
	draft7Tuples(v)
	draft7Dependencies(v)
	// A reference that stayed (recursive): siblings are an allOf branch.
	if r := v.Get("$ref"); r != nil && pureRef(v) == "" {
		rv := r.Clone()
		v.Delete("$ref")
		if n.draft < 2019 {
			ref := canon.ObjectValue(canon.Member{Key: "$ref", Value: rv})
			kept, ok := validatedRefSiblings(v, n.draft)
			if !ok {
				*v = ref
				return
			}
			*v = canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(ref, kept)})
			n.node(v)
			return
		}
		rest := *v
		*v = canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(canon.ObjectValue(canon.Member{Key: "$ref", Value: rv}), rest)})
		n.node(v)
		return
	}
	normalizeType(v)
	dropNoOps(v)
	constIntoEnum(v)
	dedupeEnum(v)
	// One-branch disjunctions are that branch.
	for _, kw := range []string{"anyOf", "oneOf"} {
		if a := v.Get(kw); a != nil && a.Kind == canon.Array && len(a.Items) == 1 {
			b := a.Items[0]
			v.Delete(kw)
			appendAllOf(v, b)
		}
	}
	liftTypeBranches(v)
	n.mergeAllOf(v)
	if v.Kind == canon.Object {
		integerStep(v)
		closedItems(v)
		freeContains(v)
		acceptsNothing(v)
	}
}

// draft4Exclusive rewrites draft-04 boolean exclusive bounds
// ("exclusiveMaximum": true beside "maximum") as numeric ones.
func draft4Exclusive(v *canon.Value) {
	for _, b := range [][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
		e := v.Get(b[0])
		if e == nil || e.Kind != canon.Bool {
			continue
		}
		m := v.Get(b[1])
		if !e.Bool || m == nil {
			v.Delete(b[0])
			continue
		}
		mv := m.Clone()
		v.Delete(b[1])
		v.Set(b[0], mv)
	}
}

// draft7Tuples rewrites a draft-07 tuple ("items" array, "additionalItems")
// as "prefixItems" and "items"; additionalItems without a tuple is ignored
// by every draft and dropped.
func draft7Tuples(v *canon.Value) {
	it := v.Get("items")
	if it == nil || it.Kind != canon.Array {
		v.Delete("additionalItems")
		return
	}
	prefix := it.Clone()
	v.Delete("items")
	if ai := v.Get("additionalItems"); ai != nil {
		aiv := ai.Clone()
		v.Delete("additionalItems")
		v.Set("items", aiv)
	}
	v.Set("prefixItems", prefix)
}

// draft7Dependencies splits draft-07 "dependencies" into
// "dependentRequired" (array members) and "dependentSchemas" (the rest),
// unless either is already there.
func draft7Dependencies(v *canon.Value) {
	d := v.Get("dependencies")
	if d == nil || d.Kind != canon.Object || v.Has("dependentRequired") || v.Has("dependentSchemas") {
		return
	}
	var req, sch []canon.Member
	for _, m := range d.Members {
		if m.Value.Kind == canon.Array {
			req = append(req, m)
		} else {
			sch = append(sch, m)
		}
	}
	v.Delete("dependencies")
	if len(req) > 0 {
		v.Set("dependentRequired", canon.ObjectValue(req...))
	}
	if len(sch) > 0 {
		v.Set("dependentSchemas", canon.ObjectValue(sch...))
	}
}

// integerStep spells a number whose multipleOf is a whole number as an
// integer: {"type":"number","multipleOf":1} is {"type":"integer"} (every
// multiple of a whole number is an integer; JSON Schema 2020-12 Validation
// §6.2.1), and a step of 1 then constrains nothing.
func integerStep(v *canon.Value) {
	m, ok := ratOf(v.Get("multipleOf"))
	if !ok || m.Sign() <= 0 || !m.IsInt() {
		return
	}
	t := v.Get("type")
	if t == nil {
		return
	}
	dt := declaredTypes(t)
	if dt&tNumber == 0 {
		return
	}
	if tv, ok := (dt &^ tFraction).typeValue(); ok {
		*t = tv
	}
	if m.Cmp(ratOne) == 0 {
		v.Delete("multipleOf")
	}
}

// closedItems spells an array that can hold no item beyond its prefix by
// its size: "items": false beside n prefixItems is "maxItems": n (the
// smaller of the two when maxItems is set), and with "maxItems": 0 no item
// keyword constrains anything.
func closedItems(v *canon.Value) {
	if it := v.Get("items"); it != nil && it.Kind == canon.Bool && !it.Bool {
		n := int64(0)
		if pi := v.Get("prefixItems"); pi != nil && pi.Kind == canon.Array {
			n = int64(len(pi.Items))
		}
		if m, ok := intOf(v.Get("maxItems")); !ok || n < m {
			v.Set("maxItems", canon.NumberValue(strconv.FormatInt(n, 10)))
		}
		v.Delete("items")
	}
	// Without "items", trailing prefixItems that accept anything say nothing.
	if pi := v.Get("prefixItems"); pi != nil && pi.Kind == canon.Array && !v.Has("items") {
		for len(pi.Items) > 0 && isTrue(&pi.Items[len(pi.Items)-1]) {
			pi.Items = pi.Items[:len(pi.Items)-1]
		}
		if len(pi.Items) == 0 {
			v.Delete("prefixItems")
		}
	}
	if m, ok := intOf(v.Get("maxItems")); ok && m == 0 {
		for _, kw := range []string{"items", "prefixItems", "uniqueItems", "maxContains"} {
			v.Delete(kw)
		}
	}
}

// knownTypeNames reports whether a "type" value (or its absence) names only
// JSON Schema types: an unknown name is the validator's error, not an empty
// type set.
func knownTypeNames(t *canon.Value) bool {
	switch {
	case t == nil:
		return true
	case t.Kind == canon.String:
		return typeBits(t.Str) != 0
	case t.Kind == canon.Array:
		for i := range t.Items {
			if t.Items[i].Kind != canon.String || typeBits(t.Items[i].Str) == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// freeContains drops a "contains" that needs no matching item: with
// "minContains": 0 and no maxContains it constrains nothing (JSON Schema
// 2020-12 Validation §6.4.5).
func freeContains(v *canon.Value) {
	if m, ok := intOf(v.Get("minContains")); ok && m == 0 && !v.Has("maxContains") {
		v.Delete("contains")
		v.Delete("minContains")
	}
}

// acceptsNothing turns a schema no instance can match into false: "not"
// of a schema that accepts everything, an allOf with a false branch, an
// anyOf or oneOf whose branches are all false, or no type left (an empty
// enum, an enum none of whose members has the declared type).
func acceptsNothing(v *canon.Value) {
	nothing := typesOf(v) == 0 && knownTypeNames(v.Get("type"))
	if nt := v.Get("not"); nt != nil && isTrue(nt) {
		nothing = true
	}
	for _, b := range schemaList(v, "allOf") {
		nothing = nothing || isFalse(&b)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if l := schemaList(v, kw); l != nil {
			all := true
			for i := range l {
				all = all && isFalse(&l[i])
			}
			nothing = nothing || all
		}
	}
	if nothing {
		*v = canon.BoolValue(false)
	}
}

func appendAllOf(v *canon.Value, b canon.Value) {
	if a := v.Get("allOf"); a != nil && a.Kind == canon.Array {
		a.Items = append(a.Items, b)
		return
	}
	v.Set("allOf", canon.ArrayValue(b))
}

// normalizeType sorts and deduplicates a type array ("integer" is dropped
// beside "number"; one type becomes a string).
func normalizeType(v *canon.Value) {
	t := v.Get("type")
	if t == nil || t.Kind != canon.Array {
		return
	}
	for i := range t.Items {
		if t.Items[i].Kind != canon.String || typeBits(t.Items[i].Str) == 0 {
			return // invalid: leave it for the validator to reject
		}
	}
	tv, ok := declaredTypes(t).typeValue()
	if ok {
		*t = tv
	}
}

// dropNoOps deletes keywords that constrain nothing.
func dropNoOps(v *canon.Value) {
	for _, kw := range []string{"additionalProperties", "items", "unevaluatedProperties", "unevaluatedItems", "propertyNames"} {
		if x := v.Get(kw); x != nil && isTrue(x) {
			v.Delete(kw)
		}
	}
	for _, kw := range []string{"minLength", "minItems", "minProperties"} {
		if x := v.Get(kw); x != nil && isZero(x) {
			v.Delete(kw)
		}
	}
	if x := v.Get("uniqueItems"); x != nil && x.Kind == canon.Bool && !x.Bool {
		v.Delete("uniqueItems")
	}
	if x := v.Get("pattern"); x != nil && x.Kind == canon.String && x.Str == "" {
		v.Delete("pattern")
	}
	dropLoneConditional(v)
	for _, kw := range []string{"properties", "patternProperties", "dependentSchemas", "dependentRequired"} {
		if x := v.Get(kw); x != nil && x.Kind == canon.Object && len(x.Members) == 0 {
			v.Delete(kw)
		}
	}
	if x := v.Get("required"); x != nil && x.Kind == canon.Array {
		dedupeRequired(x)
		if len(x.Items) == 0 {
			v.Delete("required")
		}
	}
}

// isZero reports whether x is the number 0.
func isZero(x *canon.Value) bool {
	if x.Kind != canon.Number {
		return false
	}
	r, ok := ratOf(x)
	return ok && r.Sign() == 0
}

// dropLoneConditional deletes then and else without if, and if without
// then or else.
func dropLoneConditional(v *canon.Value) {
	if !v.Has("if") {
		v.Delete("then")
		v.Delete("else")
	} else if !v.Has("then") && !v.Has("else") {
		v.Delete("if")
	}
}

// dedupeRequired keeps the first of each name in a required array.
func dedupeRequired(x *canon.Value) {
	seen := map[string]bool{}
	kept := x.Items[:0]
	for _, it := range x.Items {
		if it.Kind == canon.String && seen[it.Str] {
			continue
		}
		seen[it.Str] = true
		kept = append(kept, it)
	}
	x.Items = kept
}

// constIntoEnum folds a "const" into the "enum" beside it: an instance must
// equal the const and be a member of the enum (JSON Schema 2020-12
// Validation §6.1.2, §6.1.3), so the enum becomes [const] when the const is
// a member and [] (nothing is accepted) when it is not. A lone const is
// already an enum (canon.NormalizeTool) unless it stood beside a $ref; it
// becomes one here.
func constIntoEnum(v *canon.Value) {
	c, e := v.Get("const"), v.Get("enum")
	if c != nil && e == nil {
		v.Set("enum", canon.ArrayValue(c.Clone()))
		v.Delete("const")
		return
	}
	if c == nil || e == nil || e.Kind != canon.Array {
		return
	}
	k := jcsKey(c)
	kept := []canon.Value{}
	for i := range e.Items {
		if jcsKey(&e.Items[i]) == k {
			kept = append(kept, c.Clone())
			break
		}
	}
	v.Delete("const")
	v.Set("enum", canon.ArrayValue(kept...))
}

// dedupeEnum removes repeated enum members (by canonical form).
func dedupeEnum(v *canon.Value) {
	e := v.Get("enum")
	if e == nil || e.Kind != canon.Array || len(e.Items) < 2 {
		return
	}
	seen := map[string]bool{}
	kept := make([]canon.Value, 0, len(e.Items))
	for _, it := range e.Items {
		k := string(canon.AppendJCS(nil, &it))
		if seen[k] {
			continue
		}
		seen[k] = true
		kept = append(kept, it)
	}
	e.Items = kept
}

// typeFamilyOf returns the type family of a single type set for lifting (the
// numeric types form one family).
func typeFamilyOf(t types) types {
	if t&tNumber != 0 {
		return tNumber
	}
	return t
}

// liftTypeBranches turns an anyOf/oneOf whose branches each allow one
// distinct type family, with only keywords of that family, into one schema
// with a type array: anyOf [{type: string, maxLength: 3}, {type: null}] is
// {type: [null, string], maxLength: 3}. Branches of distinct families are
// disjoint, so oneOf is anyOf here. A branch enum is kept when every other
// branch is a finite type (null, boolean) that can join it.
func liftTypeBranches(v *canon.Value) {
	for _, kw := range []string{"anyOf", "oneOf"} {
		a := v.Get(kw)
		if a == nil || a.Kind != canon.Array || len(a.Items) < 2 || v.Has("type") || v.Has("enum") {
			continue
		}
		l := typeLift{lifted: map[string]canon.Value{}}
		if !l.collect(v, a.Items) || (l.hasEnum && !l.completeEnum(a.Items)) {
			continue
		}
		v.Delete(kw)
		l.apply(v)
		return
	}
}

// typeLift is what liftTypeBranches lifts out of one-type branches: the
// union of their types, their type-specific keywords and, when some branch
// has an enum, the union of the values every branch allows.
type typeLift struct {
	all      types
	seenFam  types
	hasEnum  bool
	enumVals []canon.Value
	lifted   map[string]canon.Value
}

// collect reads every branch; false when a branch is not an object with
// one known type of a family no other branch has, or has a keyword that
// cannot be lifted.
func (l *typeLift) collect(v *canon.Value, branches []canon.Value) bool {
	for i := range branches {
		b := &branches[i]
		if b.Kind != canon.Object {
			return false
		}
		t := b.Get("type")
		if t == nil || t.Kind != canon.String || typeBits(t.Str) == 0 {
			return false
		}
		bt := typeBits(t.Str)
		if l.seenFam&typeFamilyOf(bt) != 0 {
			return false
		}
		l.seenFam |= typeFamilyOf(bt)
		l.all |= bt
		if !l.collectMembers(v, b, bt) {
			return false
		}
	}
	return true
}

// collectMembers lifts the keywords of branch b (of type bt) that apply
// only to its type and v does not have, and gathers its enum.
func (l *typeLift) collectMembers(v, b *canon.Value, bt types) bool {
	for _, m := range b.Members {
		switch {
		case m.Key == "type" || instance.AnnotationKeyword[m.Key]:
		case m.Key == "enum":
			if m.Value.Kind != canon.Array {
				return false
			}
			l.hasEnum = true
			l.enumVals = append(l.enumVals, m.Value.Items...)
		case typeKeyword(m.Key) != 0 && typeKeyword(m.Key)&bt != 0 && !v.Has(m.Key):
			if _, dup := l.lifted[m.Key]; dup {
				return false
			}
			l.lifted[m.Key] = m.Value
		default:
			return false
		}
	}
	return true
}

// completeEnum adds the values of the branches without an enum, which must
// be null or boolean (finite types) for the union to be an enum.
func (l *typeLift) completeEnum(branches []canon.Value) bool {
	for i := range branches {
		b := &branches[i]
		if b.Has("enum") {
			continue
		}
		switch typeBits(b.Get("type").Str) {
		case tNull:
			l.enumVals = append(l.enumVals, canon.NullValue())
		case tBool:
			l.enumVals = append(l.enumVals, canon.BoolValue(false), canon.BoolValue(true))
		default:
			return false
		}
	}
	return true
}

// apply writes the lifted type, keywords (sorted) and enum into v.
func (l *typeLift) apply(v *canon.Value) {
	tv, _ := l.all.typeValue()
	v.Set("type", tv)
	keys := make([]string, 0, len(l.lifted))
	for k := range l.lifted {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v.Set(k, l.lifted[k])
	}
	if l.hasEnum {
		v.Set("enum", canon.ArrayValue(l.enumVals...))
		dedupeEnum(v)
	}
}

// mergeAllOf merges allOf branches into v where the merge is exact; the
// branches that cannot be merged stay in allOf.
func (n *normalizer) mergeAllOf(v *canon.Value) {
	a := v.Get("allOf")
	if a == nil || a.Kind != canon.Array {
		return
	}
	branches := slices.Clone(a.Items)
	v.Delete("allOf")
	var rest []canon.Value
	for i := 0; i < len(branches); i++ {
		b := branches[i]
		if b.Kind == canon.Bool {
			if !b.Bool {
				*v = canon.BoolValue(false)
				return
			}
			continue
		}
		if pureRef(&b) != "" || b.Has("$ref") {
			rest = append(rest, b)
			continue
		}
		if b.Has("allOf") {
			inner := b.Get("allOf").Clone()
			bb := b.Clone()
			bb.Delete("allOf")
			if bb.Kind == canon.Object && len(bb.Members) > 0 {
				branches = append(branches, bb)
			}
			if inner.Kind == canon.Array {
				branches = append(branches, inner.Items...)
			}
			continue
		}
		merged, ok := mergeSchemas(v, &b)
		if !ok {
			rest = append(rest, b)
			continue
		}
		*v = merged
		if v.Kind == canon.Bool {
			return
		}
	}
	if len(rest) > 0 {
		v.Set("allOf", canon.ArrayValue(rest...))
	}
	if v.Kind == canon.Object && typesOf(v) == 0 && v.Has("type") {
		*v = canon.BoolValue(false)
	}
}
