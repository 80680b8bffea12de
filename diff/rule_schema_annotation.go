package diff

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpctl/mcpctl/canon"
)

// Annotation rules: keywords that do not change validation but change
// behaviour (default) or what the model writing calls and the client
// reading results are told (title, description, examples, deprecated; JSON
// Schema 2020-12 Validation §9). They are compared in both directions at
// every position the two schemas share, whatever the validation walk
// decides (a branch covered by another, a subschema inside not), so every
// wording change is reported.

// annotationKinds are the annotation keywords compared, with the rule kind
// and the notice of a change.
var annotationKinds = []struct {
	kw     string
	kind   *schemaKind
	notice string
}{
	{"default", kindDefaultChanged, ""},
	{"description", kindDescriptionChanged, "descriptions steer the model that writes calls; review the new wording"},
	{"title", kindTitleChanged, "titles are shown to users and models; review the new wording"},
	{"examples", kindExamplesChanged, "examples steer the model that writes calls; review the new ones"},
	{"deprecated", kindDeprecatedChanged, "a deprecated value should no longer be used; models and clients may avoid it"},
}

// schemaAnnotationRules are found by compareAnnotations, beside the walk
// of the rule families.
var schemaAnnotationRules = []schemaRuleDef{
	kindRule(kindDefaultChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"An input default is added, removed or changed: calls that omit the argument may now behave differently (a notice; validation is unchanged)."),
	kindRule(kindDefaultChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"An output default is added, removed or changed: clients that fill in absent values may now assume another (a notice; validation is unchanged)."),
	kindRule(kindDescriptionChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"An input schema's description is added, removed or changed at any depth: descriptions steer the model that writes the calls (a notice)."),
	kindRule(kindDescriptionChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"An output schema's description is added, removed or changed at any depth: descriptions tell clients and models what results mean (a notice)."),
	kindRule(kindTitleChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"An input schema's title is added, removed or changed at any depth (a notice; validation is unchanged)."),
	kindRule(kindTitleChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"An output schema's title is added, removed or changed at any depth (a notice; validation is unchanged)."),
	kindRule(kindExamplesChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"An input schema's examples are added, removed or changed at any depth: examples steer the model that writes the calls (a notice)."),
	kindRule(kindExamplesChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"An output schema's examples are added, removed or changed at any depth (a notice; validation is unchanged)."),
	kindRule(kindDeprecatedChanged, Input, Safe, annotates, schemaTagsDocumentation,
		"An input value is marked deprecated, or no longer is, at any depth: models and clients may stop or start using it (a notice; validation is unchanged)."),
	kindRule(kindDeprecatedChanged, Output, Safe, annotates, schemaTagsDocumentation,
		"An output value is marked deprecated, or no longer is, at any depth: clients should stop relying on it (a notice; validation is unchanged)."),
}

// compareAnnotations reports the annotation changes between two schemas as
// given (not normalized, so each path points into the schema a reader
// sees), at every subschema position both have.
func (c *schemaComparison) compareAnnotations(o, n *canon.Value, path string) {
	if o == nil || n == nil || o.Kind != canon.Object || n.Kind != canon.Object {
		return
	}
	*c.budget--
	if *c.budget < 0 {
		return
	}
	for _, a := range annotationKinds {
		ov, nv := o.Get(a.kw), n.Get(a.kw)
		if sameValue(ov, nv) || (a.kw == "deprecated" && isFalseValue(ov) == isFalseValue(nv)) {
			continue
		}
		f := c.emitAt(a.kind, pathKW(path, a.kw), rootLoc(o, n), false, ov, nv, annotationMessage(path, a.kw, ov, nv))
		notice := a.notice
		switch {
		case a.kw == "default":
			notice = defaultNotice(c.p.Direction, ov, nv)
		case a.kw == "description" && c.p.Direction == Output:
			notice = "descriptions tell clients and the model what results mean; review the new wording"
		}
		setNotice(f, notice)
	}
	eachChildPair(o, n, func(co, cn *canon.Value, tokens ...string) {
		c.compareAnnotations(co, cn, pathKW(path, tokens...))
	})
}

// isFalseValue reports whether an annotation value is absent or false
// ("deprecated": false says what absence says).
func isFalseValue(v *canon.Value) bool {
	return v == nil || (v.Kind == canon.Bool && !v.Bool)
}

func annotationMessage(path, kw string, ov, nv *canon.Value) string {
	switch {
	case ov == nil:
		return fmt.Sprintf("%s gains %s %s", whereIs(path), kw, quoteJSON(nv))
	case nv == nil:
		return fmt.Sprintf("%s loses %s %s", whereIs(path), kw, quoteJSON(ov))
	case kw == "description":
		return fmt.Sprintf("%s description changed", whereIs(path))
	}
	return fmt.Sprintf("%s %s changed from %s to %s", whereIs(path), kw, quoteJSON(ov), quoteJSON(nv))
}

func defaultNotice(d Direction, ov, nv *canon.Value) string {
	if d == Output {
		return "clients that fill in an absent value now assume " + quoteJSON(nv) + " instead of " + quoteJSON(ov)
	}
	return "calls that omit this argument now get " + quoteJSON(nv) + " instead of " + quoteJSON(ov)
}

// branchPairs maps positions of old to positions of new: for allOf, anyOf
// and oneOf (whose order does not matter), an old branch goes to the new
// branch that validates the same (annotations aside), else to the same
// position; for prefixItems, position to position.
func branchPairs(kw string, old, new []canon.Value) map[int]int {
	out := map[int]int{}
	used := map[int]bool{}
	if kw != "prefixItems" {
		keys := make([]string, len(new))
		for k := range new {
			v := validationOnly(&new[k])
			keys[k] = string(canon.AppendSchema(nil, &v))
		}
		for j := range old {
			v := validationOnly(&old[j])
			key := string(canon.AppendSchema(nil, &v))
			for k := range new {
				if !used[k] && keys[k] == key {
					out[j], used[k] = k, true
					break
				}
			}
		}
	}
	for j := range old {
		if _, ok := out[j]; !ok && j < len(new) && !used[j] {
			out[j], used[j] = j, true
		}
	}
	return out
}

// eachChildPair calls fn for every subschema position both o and n have
// (a property of the same name, the same allOf index, items, not, …), with
// the pointer tokens from o and n to it.
func eachChildPair(o, n *canon.Value, fn func(co, cn *canon.Value, tokens ...string)) {
	for i := range o.Members {
		m := &o.Members[i]
		nv := n.Get(m.Key)
		if nv == nil {
			continue
		}
		switch {
		case slices.Contains(mapSchemaKW, m.Key) && m.Value.Kind == canon.Object && nv.Kind == canon.Object:
			for j := range m.Value.Members {
				if x := nv.Get(m.Value.Members[j].Key); x != nil {
					fn(&m.Value.Members[j].Value, x, m.Key, m.Value.Members[j].Key)
				}
			}
		case slices.Contains(arraySchemaKW, m.Key) && m.Value.Kind == canon.Array && nv.Kind == canon.Array:
			for j, k := range branchPairs(m.Key, m.Value.Items, nv.Items) {
				fn(&m.Value.Items[j], &nv.Items[k], m.Key, strconv.Itoa(k))
			}
		case slices.Contains(singleSchemaKW, m.Key):
			fn(&m.Value, nv, m.Key)
		}
	}
}

func setNotice(f *finding, s string) {
	if f.def == nil || s == "" {
		return
	}
	f.Notice = &s
}
