package diff

import (
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
)

// Constraint rules: numeric bounds and multipleOf, string length, pattern
// and format, array and object sizes, uniqueItems. A keyword is compared
// only when the type it applies to is accepted on both sides (a type change
// is the type family's finding) and neither side is an enum (the enum
// family compares the values themselves).

func boundRules(tighter, looser *schemaKind, tighterVerb, looserVerb, what string) []schemaRuleDef {
	return []schemaRuleDef{
		kindRule(tighter, Input, Breaking, narrows, schemaTagsConstraint,
			fmt.Sprintf("An input %s is %s (or added): arguments outside the new bound are rejected.", what, tighterVerb)),
		kindRule(tighter, Output, Safe, narrows, schemaTagsConstraint,
			fmt.Sprintf("An output %s is %s (or added): every new result was valid before.", what, tighterVerb)),
		kindRule(looser, Input, Safe, widens, schemaTagsConstraint,
			fmt.Sprintf("An input %s is %s (or removed): every old argument stays valid.", what, looserVerb)),
		kindRule(looser, Output, Breaking, widens, schemaTagsConstraint,
			fmt.Sprintf("An output %s is %s (or removed): clients may receive values outside the old bound.", what, looserVerb)),
	}
}

func keywordRules(added, removed *schemaKind, what string) []schemaRuleDef {
	return []schemaRuleDef{
		kindRule(added, Input, Breaking, narrows, schemaTagsConstraint,
			fmt.Sprintf("An input value gains %s: arguments that do not satisfy it are rejected.", what)),
		kindRule(added, Output, Safe, narrows, schemaTagsConstraint,
			fmt.Sprintf("An output value gains %s: every new result was valid before.", what)),
		kindRule(removed, Input, Safe, widens, schemaTagsConstraint,
			fmt.Sprintf("An input value loses %s: every old argument stays valid.", what)),
		kindRule(removed, Output, Breaking, widens, schemaTagsConstraint,
			fmt.Sprintf("An output value loses %s: clients may receive values that do not satisfy it.", what)),
	}
}

func changedRules(changed *schemaKind, what string) []schemaRuleDef {
	return []schemaRuleDef{
		kindRule(changed, Input, Breaking, reshapes, schemaTagsConstraint,
			fmt.Sprintf("An input %s is replaced by another: arguments valid under the old one may be rejected.", what)),
		kindRule(changed, Output, Breaking, reshapes, schemaTagsConstraint,
			fmt.Sprintf("An output %s is replaced by another: clients may receive values the old one rejected.", what)),
	}
}

// formatReason is why a format finding may have no witness.
const formatReason = "from JSON Schema 2019-09 on format is an annotation the validator does not assert, so such a finding has no witness there (servers and clients that do assert formats reject non-conforming strings)."

func concatRules(lists ...[]schemaRuleDef) []schemaRuleDef {
	var out []schemaRuleDef
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

var constraintFamily = ruleFamily{
	name: "constraint",
	rules: concatRules(
		boundRules(kindMaxLowered, kindMaxRaised, "lowered", "raised", "maximum (maximum or exclusiveMaximum)"),
		boundRules(kindMinRaised, kindMinLowered, "raised", "lowered", "minimum (minimum or exclusiveMinimum)"),
		[]schemaRuleDef{
			kindRule(kindMultipleOfChanged, Input, Breaking, narrows, schemaTagsConstraint,
				"An input multipleOf is added or changed so that some old multiples are rejected (the old step is not a multiple of the new one)."),
			kindRule(kindMultipleOfChanged, Output, Safe, narrows, schemaTagsConstraint,
				"An output multipleOf is added or made stricter: every new result was valid before."),
			kindRule(kindMultipleOfRelaxed, Input, Safe, widens, schemaTagsConstraint,
				"An input multipleOf is removed or relaxed (the new step divides the old one): every old argument stays valid."),
			kindRule(kindMultipleOfRelaxed, Output, Breaking, widens, schemaTagsConstraint,
				"An output multipleOf is removed or changed so that results may be numbers the old step rejected."),
		},
		boundRules(kindMaxLengthLowered, kindMaxLengthRaised, "lowered", "raised", "maxLength"),
		boundRules(kindMinLengthRaised, kindMinLengthLowered, "raised", "lowered", "minLength"),
		keywordRules(kindPatternAdded, kindPatternRemoved, "a pattern"),
		changedRules(kindPatternChanged, "pattern"),
		withoutWitness(formatReason, keywordRules(kindFormatAdded, kindFormatRemoved, "a format"), kindDir{kindFormatAdded, Input}, kindDir{kindFormatRemoved, Output}),
		withoutWitness(formatReason, changedRules(kindFormatChanged, "format")),
		boundRules(kindMaxItemsLowered, kindMaxItemsRaised, "lowered", "raised", "maxItems"),
		boundRules(kindMinItemsRaised, kindMinItemsLowered, "raised", "lowered", "minItems"),
		keywordRules(kindUniqueItemsAdded, kindUniqueItemsRemoved, "uniqueItems: true"),
		boundRules(kindMaxContainsLowered, kindMaxContainsRaised, "lowered", "raised", "maxContains"),
		boundRules(kindMinContainsRaised, kindMinContainsLowered, "raised", "lowered", "minContains"),
		boundRules(kindMaxPropertiesLowered, kindMaxPropertiesRaised, "lowered", "raised", "maxProperties"),
		boundRules(kindMinPropertiesRaised, kindMinPropertiesLowered, "raised", "lowered", "minProperties"),
	),
	check: checkConstraints,
}

func checkConstraints(p *subPair) {
	both := p.to & p.tn
	if hasEnum(p.o) || hasEnum(p.n) {
		// From 2019-09 on the validator does not assert format, so the enum
		// family cannot see it filter members: compare it as a keyword, as
		// beside any other string schema.
		if both&tString != 0 && (p.c.old.draft >= 2019 || p.c.new.draft >= 2019) {
			p.stringKeyword("format", kindFormatAdded, kindFormatRemoved, kindFormatChanged)
		}
		return
	}
	if both&tNumber != 0 {
		checkNumeric(p, both&tNumber == tInteger)
	}
	if both&tString != 0 {
		p.count("maxLength", kindMaxLengthRaised, kindMaxLengthLowered, false)
		p.count("minLength", kindMinLengthRaised, kindMinLengthLowered, true)
		p.stringKeyword("pattern", kindPatternAdded, kindPatternRemoved, kindPatternChanged)
		p.stringKeyword("format", kindFormatAdded, kindFormatRemoved, kindFormatChanged)
	}
	if both&tArray != 0 {
		p.count("maxItems", kindMaxItemsRaised, kindMaxItemsLowered, false)
		p.count("minItems", kindMinItemsRaised, kindMinItemsLowered, true)
		checkUnique(p)
		if getKW(p.o, "contains") != nil && getKW(p.n, "contains") != nil {
			p.count("maxContains", kindMaxContainsRaised, kindMaxContainsLowered, false)
			p.count("minContains", kindMinContainsRaised, kindMinContainsLowered, true)
		}
	}
	if both&tObject != 0 {
		p.count("maxProperties", kindMaxPropertiesRaised, kindMaxPropertiesLowered, false)
		p.count("minProperties", kindMinPropertiesRaised, kindMinPropertiesLowered, true)
	}
}

func checkNumeric(p *subPair, intOnly bool) {
	lo, ln := lowerBound(p.o, intOnly), lowerBound(p.n, intOnly)
	switch tighterLower(lo, ln) {
	case 1:
		f := p.emit(kindMinRaised, pathKW(p.path, ln.kw), lo.src, ln.src,
			fmt.Sprintf("%s minimum raised from %s to %s%s", whereIs(p.path), boundText(lo), boundText(ln), exclText(ln)))
		p.samplesFor(f)
	case -1:
		kw := ln.kw
		if !ln.set {
			kw = lo.kw
		}
		f := p.emit(kindMinLowered, pathKW(p.path, kw), lo.src, ln.src,
			fmt.Sprintf("%s minimum lowered from %s to %s%s", whereIs(p.path), boundText(lo), boundText(ln), exclText(ln)))
		p.samplesFor(f)
	}
	ho, hn := upperBound(p.o, intOnly), upperBound(p.n, intOnly)
	switch tighterUpper(ho, hn) {
	case 1:
		f := p.emit(kindMaxLowered, pathKW(p.path, hn.kw), ho.src, hn.src,
			fmt.Sprintf("%s maximum lowered from %s to %s%s", whereIs(p.path), boundText(ho), boundText(hn), exclText(hn)))
		p.samplesFor(f)
	case -1:
		kw := hn.kw
		if !hn.set {
			kw = ho.kw
		}
		f := p.emit(kindMaxRaised, pathKW(p.path, kw), ho.src, hn.src,
			fmt.Sprintf("%s maximum raised from %s to %s%s", whereIs(p.path), boundText(ho), boundText(hn), exclText(hn)))
		p.samplesFor(f)
	}
	mo, okO := ratOf(getKW(p.o, "multipleOf"))
	mn, okN := ratOf(getKW(p.n, "multipleOf"))
	if intOnly {
		// multipleOf 1 (or any 1/k) constrains no integer.
		if okO && isMultiple(ratOne, mo) {
			okO = false
		}
		if okN && isMultiple(ratOne, mn) {
			okN = false
		}
	}
	if !okO && !okN {
		return
	}
	narrow := okN && (!okO || !isMultiple(mo, mn))
	widen := okO && (!okN || !isMultiple(mn, mo))
	path := pathKW(p.path, "multipleOf")
	ov, nv := getKW(p.o, "multipleOf"), getKW(p.n, "multipleOf")
	msg := fmt.Sprintf("%s multipleOf changed from %s to %s", whereIs(p.path), quoteJSON(ov), quoteJSON(nv))
	dir := p.c.p.Direction
	if narrow && (dir == Input || !widen) {
		f := p.emit(kindMultipleOfChanged, path, ov, nv, msg)
		p.samplesFor(f)
	} else if widen {
		f := p.emit(kindMultipleOfRelaxed, path, ov, nv, msg)
		p.samplesFor(f)
	}
}

func boundText(b bound) string {
	if !b.set {
		return "none"
	}
	return ratText(b.v)
}

func exclText(b bound) string {
	if b.set && b.excl {
		return " (exclusive)"
	}
	return ""
}

// countOf reads a size keyword's value; an absent minContains beside
// contains is 1 (JSON Schema 2020-12 Validation §6.4.5), the only size
// keyword with a default that constrains.
func countOf(v *canon.Value, kw string) (int64, bool) {
	if v == nil && kw == "minContains" {
		return 1, true
	}
	return intOf(v)
}

// count compares a non-negative size keyword; lower says whether it is a
// lower bound (minItems) or an upper one (maxItems); raised and lowered
// are the kinds of the keyword's rules.
func (p *subPair) count(kw string, raised, lowered *schemaKind, lower bool) {
	ov, nv := getKW(p.o, kw), getKW(p.n, kw)
	a, okA := countOf(ov, kw)
	b, okB := countOf(nv, kw)
	if okA == okB && a == b {
		return
	}
	// c > 0: the new bound excludes more.
	c := 0
	switch {
	case !okA:
		c = 1
	case !okB:
		c = -1
	case lower && b > a, !lower && b < a:
		c = 1
	default:
		c = -1
	}
	tight, loose := lowered, raised
	if lower {
		tight, loose = raised, lowered
	}
	show := func(ok bool, n int64) string {
		if !ok {
			return "none"
		}
		return fmt.Sprint(n)
	}
	k := tight
	if c < 0 {
		k = loose
	}
	v := "lowered"
	if k == raised {
		v = "raised"
	}
	f := p.emit(k, pathKW(p.path, kw), ov, nv, fmt.Sprintf("%s %s %s from %s to %s", whereIs(p.path), kw, v, show(okA, a), show(okB, b)))
	p.samplesFor(f)
}

// stringKeyword compares pattern or format; added, removed and changed are
// the kinds of the keyword's rules.
func (p *subPair) stringKeyword(kw string, added, removed, changed *schemaKind) {
	ov, nv := getKW(p.o, kw), getKW(p.n, kw)
	if ov == nil && nv == nil {
		return
	}
	if ov != nil && nv != nil && ov.Kind == nv.Kind && ov.Str == nv.Str {
		return
	}
	path := pathKW(p.path, kw)
	var f *finding
	switch {
	case ov == nil:
		f = p.emit(added, path, ov, nv, fmt.Sprintf("%s gains %s %s", whereIs(p.path), kw, quoteJSON(nv)))
	case nv == nil:
		f = p.emit(removed, path, ov, nv, fmt.Sprintf("%s loses %s %s", whereIs(p.path), kw, quoteJSON(ov)))
	default:
		f = p.emit(changed, path, ov, nv, fmt.Sprintf("%s %s changed from %s to %s", whereIs(p.path), kw, quoteJSON(ov), quoteJSON(nv)))
		if kw == "pattern" {
			f.undecided = "whether one regular expression accepts every string another accepts is not decided here, and no string telling them apart was found"
		}
	}
	p.samplesFor(f)
	if kw == "format" && (p.c.old.draft >= 2019 || p.c.new.draft >= 2019) && f.noWitness == "" {
		f.noWitness = "format is an annotation from JSON Schema 2019-09 on: the validator does not assert it, so no witness can be checked (servers that do assert formats will reject non-conforming strings)"
	}
}

func checkUnique(p *subPair) {
	isOn := func(s *canon.Value) bool {
		u := getKW(s, "uniqueItems")
		return u != nil && u.Kind == canon.Bool && u.Bool
	}
	a, b := isOn(p.o), isOn(p.n)
	if a == b {
		return
	}
	path := pathKW(p.path, "uniqueItems")
	var f *finding
	if b {
		f = p.emit(kindUniqueItemsAdded, path, getKW(p.o, "uniqueItems"), getKW(p.n, "uniqueItems"), fmt.Sprintf("%s now requires unique items", whereIs(p.path)))
	} else {
		f = p.emit(kindUniqueItemsRemoved, path, getKW(p.o, "uniqueItems"), getKW(p.n, "uniqueItems"), fmt.Sprintf("%s no longer requires unique items", whereIs(p.path)))
	}
	p.samplesFor(f)
}
