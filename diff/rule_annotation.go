package diff

import (
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
)

// annotationRules compare a tool's annotations (MCP 2025-11-25,
// ToolAnnotations). Each boolean hint is compared by its effective value,
// the spec default standing in for an absent hint, so that an added or
// dropped default is no change (docs/diff.md#normalization). The defaults are also the
// cautious values, so a hint moving away from its default claims less
// danger.
var (
	ruleAnnotationMoreCautious = diffRule("annotation-more-cautious", Safe, ToolD, []string{"annotation"},
		"A behaviour hint now claims more danger (readOnlyHint true→false, destructiveHint false→true, idempotentHint true→false, openWorldHint false→true), so clients only get more careful.")
	ruleAnnotationLessCautious = diffRule("annotation-less-cautious", Safe, ToolD, []string{"annotation", "security"},
		"A behaviour hint now claims less danger (readOnlyHint false→true, destructiveHint true→false, idempotentHint false→true, openWorldHint true→false), which calls survive but clients may act on with less care, so it carries a security notice.")
	ruleAnnotationTitleChanged = diffRule("annotation-title-changed", Safe, ToolD, []string{"annotation", "documentation"},
		"The title inside annotations changed, which only affects what people see.")
	ruleAnnotationChanged = diffRule("annotation-changed", Safe, ToolD, []string{"annotation"},
		"An annotation other than the four hints and the title (or a hint that is not a boolean) was added, removed or changed.")
)

// annotationRules lists them for the catalog.
var annotationRules = []Rule{
	ruleAnnotationMoreCautious, ruleAnnotationLessCautious, ruleAnnotationTitleChanged, ruleAnnotationChanged,
}

// hints are the four ToolAnnotations booleans, in report order.
var hints = []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}

// lessCautiousNotice says, per hint, what a client may do differently once
// the hint moves away from its default.
var lessCautiousNotice = map[string]string{
	"readOnlyHint":    "security: the tool now claims it does not modify its environment; clients may run it without asking the user first. Verify the claim.",
	"destructiveHint": "security: the tool now claims its changes are only additive, not destructive; clients may skip confirmation. Verify the claim.",
	"idempotentHint":  "security: the tool now claims repeated calls have no further effect; clients may retry it automatically. Verify the claim.",
	"openWorldHint":   "security: the tool now claims it does not reach external entities (closed world); clients may relax safeguards for untrusted content. Verify the claim.",
}

// annotationChanges compares the annotations of two tool versions.
func annotationChanges(name string, ov, nv *canon.Value) []Change {
	oa, na := ov.Get("annotations"), nv.Get("annotations")
	if (oa != nil && oa.Kind != canon.Object) || (na != nil && na.Kind != canon.Object) {
		if sameValue(oa, na) {
			return nil
		}
		c := newChange(ruleAnnotationChanged, name, "/annotations")
		c.Old, c.New = jcs(oa), jcs(na)
		c.Message = "annotations " + describeChange(oa, na)
		return []Change{c}
	}
	var out []Change
	isHint := map[string]bool{}
	for _, h := range hints {
		isHint[h] = true
		o, oOK := hintValue(oa, h)
		n, nOK := hintValue(na, h)
		if !oOK || !nOK {
			continue // not a boolean: compared below as a plain member
		}
		if o == n {
			continue
		}
		def, _ := canon.AnnotationDefault(h)
		r := ruleAnnotationMoreCautious
		if n != def {
			r = ruleAnnotationLessCautious
		}
		c := newChange(r, name, "/annotations/"+h)
		ob, nb := canon.BoolValue(o), canon.BoolValue(n)
		c.Old, c.New = jcs(&ob), jcs(&nb)
		c.Message = fmt.Sprintf("%s %t -> %t (absent means %t)", h, o, n, def)
		if r.ID == ruleAnnotationLessCautious.ID {
			addNotice(&c, lessCautiousNotice[h])
		}
		out = append(out, c)
	}
	for _, k := range unionKeys(oa, na) {
		o, n := oa.Get(k), na.Get(k)
		if sameValue(o, n) {
			continue
		}
		if isHint[k] {
			_, oOK := hintValue(oa, k)
			_, nOK := hintValue(na, k)
			if oOK && nOK {
				continue // compared above
			}
		}
		r := ruleAnnotationChanged
		if k == "title" {
			r = ruleAnnotationTitleChanged
		}
		c := newChange(r, name, "/annotations/"+canon.EscapePointer(k))
		c.Old, c.New = jcs(o), jcs(n)
		c.Message = fmt.Sprintf("annotation %q %s", k, describeChange(o, n))
		out = append(out, c)
	}
	return out
}

// hintValue returns the effective value of a hint (its spec default when
// absent); ok is false when the member is present but not a boolean.
func hintValue(ann *canon.Value, hint string) (val, ok bool) {
	def, _ := canon.AnnotationDefault(hint)
	v := ann.Get(hint)
	switch {
	case v == nil:
		return def, true
	case v.Kind == canon.Bool:
		return v.Bool, true
	}
	return false, false
}
