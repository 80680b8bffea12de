package diff

import (
	"fmt"
	"strconv"

	"github.com/mcpctl/mcpctl/canon"
)

// Composition rules: allOf branches left after merging, anyOf/oneOf
// branches matched by subsumption (not position), oneOf exclusivity, not
// (compared with the direction inverted) and if/then/else.

var compositionFamily = ruleFamily{
	name: "composition",
	rules: []schemaRuleDef{
		kindRule(kindAnyOfBranchRemoved, Input, Breaking, narrows, schemaTagsStructure,
			"An input anyOf/oneOf loses a branch that no new branch covers: arguments matching only it are rejected."),
		kindRule(kindAnyOfBranchRemoved, Output, Safe, narrows, schemaTagsStructure,
			"An output anyOf/oneOf loses a branch: every new result was valid before."),
		kindRule(kindAnyOfBranchAdded, Input, Safe, widens, schemaTagsStructure,
			"An input anyOf/oneOf gains a branch no old branch covers: more arguments are accepted."),
		kindRule(kindAnyOfBranchAdded, Output, Breaking, widens, schemaTagsStructure,
			"An output anyOf/oneOf gains a branch no old branch covers: clients may receive results of a shape they never handled."),
		kindRule(kindOneOfOverlap, Input, Breaking, narrows, schemaTagsStructure,
			"Two branches of an input oneOf may now both match (a branch added or widened, or anyOf turned into oneOf): arguments matching both are rejected."),
		kindRule(kindOneOfOverlap, Output, Safe, narrows, schemaTagsStructure,
			"Two branches of an output oneOf may now both match: such results are rejected, so every new result was valid before."),
		kindRule(kindAllOfBranchAdded, Input, Breaking, narrows, schemaTagsStructure,
			"An input allOf gains a branch that could not be merged: arguments must satisfy it too."),
		kindRule(kindAllOfBranchAdded, Output, Safe, narrows, schemaTagsStructure,
			"An output allOf gains a branch: every new result was valid before."),
		kindRule(kindAllOfBranchRemoved, Input, Safe, widens, schemaTagsStructure,
			"An input allOf loses a branch: every old argument stays valid."),
		kindRule(kindAllOfBranchRemoved, Output, Breaking, widens, schemaTagsStructure,
			"An output allOf loses a branch: results may violate what it required."),
		kindRule(kindCompositionNarrowed, Input, Breaking, narrows, schemaTagsStructure,
			"An input anyOf, oneOf, not or if/then/else constraint is added or tightened (or something inside a not is widened): some old arguments are rejected."),
		kindRule(kindCompositionNarrowed, Output, Safe, narrows, schemaTagsStructure,
			"An output anyOf, oneOf, not or if/then/else constraint is added or tightened: every new result was valid before."),
		kindRule(kindCompositionWidened, Input, Safe, widens, schemaTagsStructure,
			"An input anyOf, oneOf, not or if/then/else constraint is removed or relaxed (or something inside a not is narrowed): every old argument stays valid."),
		kindRule(kindCompositionWidened, Output, Breaking, widens, schemaTagsStructure,
			"An output anyOf, oneOf, not or if/then/else constraint is removed or relaxed: clients may receive results the old schema rejected."),
		kindRule(kindCompositionChanged, Input, Breaking, reshapes, schemaTagsStructure,
			"An input schema changed in a way not analyzed keyword by keyword (an if condition replaced, an unresolvable or non-local $ref, unevaluated*, nesting too deep): breaking unless a search shows otherwise, and marked undecided when no witness is found."),
		kindRule(kindCompositionChanged, Output, Breaking, reshapes, schemaTagsStructure,
			"An output schema changed in a way not analyzed keyword by keyword: breaking, and marked undecided when no witness is found."),
	},
	check: checkComposition,
}

func schemaList(s *canon.Value, kw string) []canon.Value {
	if a := getKW(s, kw); a != nil && a.Kind == canon.Array {
		return a.Items
	}
	return nil
}

func checkComposition(p *subPair) {
	checkAllOf(p)
	checkDisjunctions(p)
	checkNot(p)
	checkConditional(p)
	checkUnanalyzed(p)
}

func checkAllOf(p *subPair) {
	ao, an := schemaList(p.o, "allOf"), schemaList(p.n, "allOf")
	if ao == nil && an == nil {
		return
	}
	usedN := make([]bool, len(an))
	var restO []int
	for i := range ao {
		found := false
		for j := range an {
			if !usedN[j] && sameSchema(p.c, &ao[i], &an[j]) {
				usedN[j], found = true, true
				break
			}
		}
		if !found {
			restO = append(restO, i)
		}
	}
	var restN []int
	for j := range an {
		if !usedN[j] {
			restN = append(restN, j)
		}
	}
	k := min(len(restO), len(restN))
	for x := 0; x < k; x++ {
		i, j := restO[x], restN[x]
		p.c.walk(&ao[i], &an[j], pathKW(p.path, "allOf", strconv.Itoa(j)), p.at.branch(&ao[i], &an[j]), p.inv)
	}
	for _, j := range restN[k:] {
		f := p.emit(kindAllOfBranchAdded, pathKW(p.path, "allOf", strconv.Itoa(j)), nil, &an[j], fmt.Sprintf("%s must now also match allOf branch %d", whereIs(p.path), j))
		p.samplesFor(f)
		f.reject = nil
	}
	for _, i := range restO[k:] {
		f := p.emit(kindAllOfBranchRemoved, pathKW(p.path, "allOf", strconv.Itoa(i)), &ao[i], nil, fmt.Sprintf("%s no longer has to match old allOf branch %d", whereIs(p.path), i))
		p.samplesFor(f)
		f.reject = nil
	}
}

func checkDisjunctions(p *subPair) {
	oa, oo := schemaList(p.o, "anyOf"), schemaList(p.o, "oneOf")
	na, no := schemaList(p.n, "anyOf"), schemaList(p.n, "oneOf")
	switch {
	case oa != nil && oo == nil && na == nil && no != nil:
		compareDisjunction(p, oa, "anyOf", no, "oneOf")
		return
	case oo != nil && oa == nil && no == nil && na != nil:
		compareDisjunction(p, oo, "oneOf", na, "anyOf")
		return
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		ol, nl := schemaList(p.o, kw), schemaList(p.n, kw)
		switch {
		case ol == nil && nl == nil:
		case ol == nil:
			f := p.emit(kindCompositionNarrowed, pathKW(p.path, kw), nil, getKW(p.n, kw), fmt.Sprintf("%s must now match one of %d %s branches", whereIs(p.path), len(nl), kw))
			p.samplesFor(f)
			f.reject = nil
		case nl == nil:
			f := p.emit(kindCompositionWidened, pathKW(p.path, kw), getKW(p.o, kw), nil, fmt.Sprintf("%s no longer has to match one of its %d %s branches", whereIs(p.path), len(ol), kw))
			p.samplesFor(f)
			f.reject = nil
		default:
			compareDisjunction(p, ol, kw, nl, kw)
		}
	}
}

// conjSchema returns s without keyword kw, conjoined with branch b: the
// schema an instance matching that branch at this location meets.
func conjSchema(s *canon.Value, kw string, b *canon.Value) *canon.Value {
	if s == nil || s.Kind != canon.Object {
		return b
	}
	c := s.Clone()
	c.Delete(kw)
	if len(c.Members) == 0 {
		return b
	}
	v := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(c, b.Clone())})
	return &v
}

// compareDisjunction matches old branches O (of keyword ok) with new
// branches N (of keyword nk) by subsumption: an old branch is covered when
// some new branch accepts all it accepts, and vice versa. Uncovered
// branches in the breaking direction are compared with their most similar
// counterpart, or reported as removed/added.
func compareDisjunction(p *subPair, O []canon.Value, ok string, N []canon.Value, nk string) {
	covO, covN := branchCoverage(p, O, N)
	input := p.c.p.Direction == Input
	if p.inv {
		input = !input
	}
	if input {
		p.oldBranchesLost(O, ok, N, nk, covO, covN)
	} else {
		p.newBranchesGained(O, ok, N, nk, covO, covN)
	}
	if nk == "oneOf" {
		p.oneOfOverlaps(O, ok, N)
	}
	if ok == "oneOf" && nk == "anyOf" {
		p.oneOfBecameAnyOf(O)
	}
}

// branchCoverage says which old branches some new branch accepts all of
// (covO) and which new branches some old branch does (covN).
func branchCoverage(p *subPair, O, N []canon.Value) (covO, covN []bool) {
	c := p.c
	covO, covN = make([]bool, len(O)), make([]bool, len(N))
	for i := range O {
		for j := range N {
			if sameSchema(c, &O[i], &N[j]) {
				covO[i], covN[j] = true, true
			}
		}
	}
	for i := range O {
		for j := 0; j < len(N) && !covO[i]; j++ {
			covO[i] = c.subset(&O[i], c.old, &N[j], c.new, p.at.domain())
		}
	}
	for j := range N {
		for i := 0; i < len(O) && !covN[j]; i++ {
			covN[j] = c.subset(&N[j], c.new, &O[i], c.old, p.at.domain())
		}
	}
	return covO, covN
}

// oldBranchesLost handles the input side (old ⊆ new required): an
// uncovered old branch is compared with its closest new branch, or
// reported removed with samples; uncovered new branches are safe
// additions.
func (p *subPair) oldBranchesLost(O []canon.Value, ok string, N []canon.Value, nk string, covO, covN []bool) {
	c := p.c
	explained := map[int]bool{}
	for i := range O {
		if covO[i] {
			continue
		}
		if j := bestPartner(&O[i], N, c.old, c.new); j >= 0 {
			explained[j] = true
			c.walk(&O[i], &N[j], pathKW(p.path, nk, strconv.Itoa(j)), p.at.branch(&O[i], &N[j]), p.inv)
			continue
		}
		f := p.emit(kindAnyOfBranchRemoved, pathKW(p.path, ok, strconv.Itoa(i)), &O[i], nil, fmt.Sprintf("%s lost %s branch %d, which no new branch covers", whereIs(p.path), ok, i))
		f.samples, f.sampleSide = conjSchema(p.o, ok, &O[i]), c.old
		if p.inv {
			f.samples, f.sampleSide = nil, nil
		}
	}
	for j := range N {
		if !covN[j] && !explained[j] {
			p.emit(kindAnyOfBranchAdded, pathKW(p.path, nk, strconv.Itoa(j)), nil, &N[j], fmt.Sprintf("%s gained %s branch %d", whereIs(p.path), nk, j))
		}
	}
}

// newBranchesGained handles the output side (new ⊆ old required), the
// mirror of oldBranchesLost.
func (p *subPair) newBranchesGained(O []canon.Value, ok string, N []canon.Value, nk string, covO, covN []bool) {
	c := p.c
	explained := map[int]bool{}
	for j := range N {
		if covN[j] {
			continue
		}
		if i := bestPartner(&N[j], O, c.new, c.old); i >= 0 {
			explained[i] = true
			c.walk(&O[i], &N[j], pathKW(p.path, nk, strconv.Itoa(j)), p.at.branch(&O[i], &N[j]), p.inv)
			continue
		}
		f := p.emit(kindAnyOfBranchAdded, pathKW(p.path, nk, strconv.Itoa(j)), nil, &N[j], fmt.Sprintf("%s gained %s branch %d, which no old branch covers", whereIs(p.path), nk, j))
		f.samples, f.sampleSide = conjSchema(p.n, nk, &N[j]), c.new
		if p.inv {
			f.samples, f.sampleSide = nil, nil
		}
	}
	for i := range O {
		if !covO[i] && !explained[i] {
			p.emit(kindAnyOfBranchRemoved, pathKW(p.path, ok, strconv.Itoa(i)), &O[i], nil, fmt.Sprintf("%s lost %s branch %d", whereIs(p.path), ok, i))
		}
	}
}

// oneOfOverlaps reports pairs of new oneOf branches a value may match
// both of (and is then rejected), unless the same pair overlapped before.
func (p *subPair) oneOfOverlaps(O []canon.Value, ok string, N []canon.Value) {
	c := p.c
	for j := range N {
		for k := j + 1; k < len(N); k++ {
			if disjoint(c, &N[j], c.new, &N[k], c.new) {
				continue
			}
			if ok == "oneOf" && hadPair(c, O, &N[j], &N[k]) {
				continue // the same two branches overlapped before
			}
			both := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(N[j].Clone(), N[k].Clone())})
			f := p.emit(kindOneOfOverlap, pathKW(p.path, "oneOf", strconv.Itoa(k)), &N[j], &N[k],
				fmt.Sprintf("%s: a value may match both oneOf branches %d and %d and is then rejected", whereIs(p.path), j, k))
			f.samples, f.sampleSide = conjSchema(p.n, "oneOf", &both), c.new
			f.undecided = fmt.Sprintf("whether oneOf branches %d and %d can both match is not decided, and no value matching both was found", j, k)
		}
	}
}

// oneOfBecameAnyOf reports oneOf turned anyOf when two old branches
// overlap: values matching both, rejected before, are now accepted.
func (p *subPair) oneOfBecameAnyOf(O []canon.Value) {
	c := p.c
	for i := range O {
		for k := i + 1; k < len(O); k++ {
			if !disjoint(c, &O[i], c.old, &O[k], c.old) {
				f := p.emit(kindCompositionWidened, pathKW(p.path, "anyOf"), getKW(p.o, "oneOf"), getKW(p.n, "anyOf"),
					fmt.Sprintf("%s: oneOf became anyOf, so values matching several branches are now accepted", whereIs(p.path)))
				p.samplesFor(f)
				return
			}
		}
	}
}

// hadPair reports whether two new branches both equal old branches (so
// their overlap is not new).
func hadPair(c *schemaComparison, O []canon.Value, a, b *canon.Value) bool {
	fa, fb := false, false
	for i := range O {
		fa = fa || sameSchema(c, &O[i], a)
		fb = fb || sameSchema(c, &O[i], b)
	}
	return fa && fb
}

// bestPartner returns the index of the branch in list most similar to x
// (by type, declared properties and discriminator values), or -1 when
// none is similar.
func bestPartner(x *canon.Value, list []canon.Value, xs, ls *schemaSide) int {
	rx, _ := xs.resolve(x)
	best, bestScore := -1, 0
	for i := range list {
		ri, _ := ls.resolve(&list[i])
		if ri == nil || rx == nil {
			continue
		}
		score := 0
		tx, ti := typesOf(rx), typesOf(ri)
		if tx&ti == 0 {
			continue
		}
		if tx == ti {
			score += 2
		}
		px, pi := getKW(rx, "properties"), getKW(ri, "properties")
		for _, k := range memberNames(px) {
			if pi != nil && pi.Get(k) != nil {
				score++
				ex, ei := getKW(px.Get(k), "enum"), getKW(pi.Get(k), "enum")
				if ex != nil && ei != nil {
					if enumsOverlap(ex, ei) {
						score += 5
					} else {
						score -= 5
					}
				}
			}
		}
		if len(list) == 1 && score == 0 {
			score = 1
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

func enumsOverlap(a, b *canon.Value) bool {
	if a.Kind != canon.Array || b.Kind != canon.Array {
		return true
	}
	for i := range a.Items {
		k := jcsKey(&a.Items[i])
		for j := range b.Items {
			if jcsKey(&b.Items[j]) == k {
				return true
			}
		}
	}
	return false
}

// disjoint reports whether no instance can match both a and b: their types
// do not meet, their enums do not meet, or a property both require has
// enums (discriminators) that do not meet.
func disjoint(c *schemaComparison, a *canon.Value, as *schemaSide, b *canon.Value, bs *schemaSide) bool {
	ra, okA := as.resolve(a)
	rb, okB := bs.resolve(b)
	if !okA || !okB {
		return false
	}
	ta, tb := typesOf(ra), typesOf(rb)
	if ta&tb == 0 {
		return true
	}
	if ea, eb := getKW(ra, "enum"), getKW(rb, "enum"); ea != nil && eb != nil && !enumsOverlap(ea, eb) {
		return true
	}
	if ta&tb&^tObject != 0 {
		return false // they may share a non-object value
	}
	ra2, rb2 := requiredNames(ra), requiredNames(rb)
	for _, k := range ra2 {
		pa, pb := effective(ra, k), effective(rb, k)
		for _, r := range rb2 {
			if r != k {
				continue
			}
			if isFalse(pb) || isFalse(pa) {
				return true
			}
			ea, eb := getKW(pa, "enum"), getKW(pb, "enum")
			if ea != nil && eb != nil && !enumsOverlap(ea, eb) {
				return true
			}
			if typesOf(pa)&typesOf(pb) == 0 {
				return true
			}
		}
		if isFalse(effective(rb, k)) {
			return true
		}
	}
	for _, k := range rb2 {
		if isFalse(effective(ra, k)) {
			return true
		}
	}
	return false
}

func checkNot(p *subPair) {
	on, nn := getKW(p.o, "not"), getKW(p.n, "not")
	path := pathKW(p.path, "not")
	switch {
	case on == nil && nn == nil:
	case on != nil && nn != nil:
		p.c.walk(on, nn, path, p.at, !p.inv)
	case nn != nil:
		f := p.emit(kindCompositionNarrowed, path, nil, nn, fmt.Sprintf("%s must now not match a schema", whereIs(p.path)))
		p.samplesFor(f)
		f.reject = nil
	default:
		f := p.emit(kindCompositionWidened, path, on, nil, fmt.Sprintf("%s no longer excludes values matching a schema", whereIs(p.path)))
		p.samplesFor(f)
		f.reject = nil
	}
}

func checkConditional(p *subPair) {
	oi, ni := getKW(p.o, "if"), getKW(p.n, "if")
	if oi == nil && ni == nil {
		return
	}
	path := pathKW(p.path, "if")
	switch {
	case oi != nil && ni != nil && sameSchema(p.c, oi, ni):
		for _, kw := range []string{"then", "else"} {
			ov, nv := getKW(p.o, kw), getKW(p.n, kw)
			if ov == nil {
				ov = &trueSchema
			}
			if nv == nil {
				nv = &trueSchema
			}
			at := p.at
			if kw == "then" {
				at = at.branch(oi, ni)
			}
			p.c.walk(ov, nv, pathKW(p.path, kw), at, p.inv)
		}
	case oi == nil:
		f := p.emit(kindCompositionNarrowed, path, nil, ni, fmt.Sprintf("%s gains an if/then/else condition", whereIs(p.path)))
		p.samplesFor(f)
		f.reject = nil
	case ni == nil:
		f := p.emit(kindCompositionWidened, path, oi, nil, fmt.Sprintf("%s loses its if/then/else condition", whereIs(p.path)))
		p.samplesFor(f)
		f.reject = nil
	default:
		f := p.emit(kindCompositionChanged, path, oi, ni, fmt.Sprintf("%s changed its if condition", whereIs(p.path)))
		p.samplesFor(f)
		f.reject = nil
		f.undecided = "a changed if condition is not compared keyword by keyword, and no instance telling the schemas apart was found"
	}
}

// unanalyzed keywords are compared as text: a change is undecided unless a
// witness is found.
var unanalyzed = []string{"unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef", "$ref"}

func checkUnanalyzed(p *subPair) {
	for _, kw := range unanalyzed {
		ov, nv := getKW(p.o, kw), getKW(p.n, kw)
		if ov == nil && nv == nil {
			continue
		}
		if kw == "$ref" && pureRef(p.o) == "" && pureRef(p.n) == "" && ov != nil && nv != nil && ov.Str == nv.Str {
			continue
		}
		if ov != nil && nv != nil && string(canon.AppendSchema(nil, ov)) == string(canon.AppendSchema(nil, nv)) {
			continue
		}
		f := p.emit(kindCompositionChanged, pathKW(p.path, kw), ov, nv, fmt.Sprintf("%s changed %s, which is not compared keyword by keyword", whereIs(p.path), kw))
		p.samplesFor(f)
		f.reject = nil
		f.undecided = kw + " is not analyzed, and no instance telling the schemas apart was found"
	}
}

// asymmetricDisjunction returns the disjunction keyword (anyOf or oneOf)
// that exactly one of o and n has, and whether it is o; "" when both or
// neither have one, or a side has both keywords.
func asymmetricDisjunction(o, n *canon.Value) (string, bool) {
	kwOf := func(s *canon.Value) (string, bool) {
		a, b := getKW(s, "anyOf") != nil, getKW(s, "oneOf") != nil
		switch {
		case a && b:
			return "", false
		case a:
			return "anyOf", true
		case b:
			return "oneOf", true
		}
		return "", true
	}
	ko, okO := kwOf(o)
	kn, okN := kwOf(n)
	if !okO || !okN || (ko == "") == (kn == "") {
		return "", false
	}
	if ko != "" {
		return ko, true
	}
	return kn, false
}

// branchSchema returns the schema an instance matching branch b of
// disjunction kw in s meets: s without kw, merged with b where exact.
func branchSchema(sd *schemaSide, s *canon.Value, kw string, b *canon.Value) *canon.Value {
	k := s.Clone()
	k.Delete(kw)
	rb, ok := sd.resolve(b)
	if !ok {
		rb = b
	}
	if len(k.Members) == 0 {
		return rb
	}
	if m, ok := mergeSchemas(&k, rb); ok {
		nz := &normalizer{draft: sd.draft}
		nz.node(&m)
		return &m
	}
	v := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(k, rb.Clone())})
	return &v
}

// decomposeDisjunction compares a source side (the side that must be the
// subset: old for input, new for output) that is a disjunction with a
// target side that is not: each branch must be covered by the target.
// Uncovered branches are compared with the target when similar (same
// types, no conflicting discriminator), else reported as a lost (input) or
// gained (output) branch.
func decomposeDisjunction(p *subPair, kw string, onOld bool) {
	c := p.c
	src, dst := c.old, c.new
	d, x := p.o, p.n
	if !onOld {
		src, dst = c.new, c.old
		d, x = p.n, p.o
	}
	branches := schemaList(d, kw)
	covered := 0
	for i := range branches {
		si := branchSchema(src, d, kw, &branches[i])
		if c.subset(si, src, x, dst, p.at.domain()) {
			covered++
			continue
		}
		path := pathKW(p.path, kw, strconv.Itoa(i))
		score, conflict := similarity(si, src, x, dst)
		if score >= 2 && !conflict {
			if onOld {
				c.walk(si, x, path, p.at.branch(si, nil), false)
			} else {
				c.walk(x, si, path, p.at.branch(nil, si), false)
			}
			continue
		}
		if onOld {
			f := p.emit(kindAnyOfBranchRemoved, path, &branches[i], nil, fmt.Sprintf("%s no longer accepts what %s branch %d accepted", whereIs(p.path), kw, i))
			f.samples, f.sampleSide = si, src
		} else {
			f := p.emit(kindAnyOfBranchAdded, path, nil, &branches[i], fmt.Sprintf("%s now also allows what %s branch %d allows", whereIs(p.path), kw, i))
			f.samples, f.sampleSide = si, src
		}
	}
	if covered == len(branches) {
		// Every branch fits the other side: the change goes the safe way
		// (input widened, output narrowed), but it is a change.
		safeDisjunctionChange(p, kw, onOld)
	}
}

// safeDisjunctionChange reports a disjunction added or dropped in the safe
// sense: every instance the source side accepts, the target accepts.
func safeDisjunctionChange(p *subPair, kw string, onOld bool) {
	ov, nv := getKW(p.o, kw), getKW(p.n, kw)
	if p.c.p.Direction == Input {
		msg := fmt.Sprintf("%s now accepts at least everything its %s branches accepted", whereIs(p.path), kw)
		if !onOld {
			msg = fmt.Sprintf("%s now matches one of %d %s branches, one of which accepts everything it accepted", whereIs(p.path), len(schemaList(p.n, kw)), kw)
		}
		p.emit(kindCompositionWidened, pathKW(p.path, kw), ov, nv, msg)
		return
	}
	msg := fmt.Sprintf("%s now allows only what its %s branches allow, all of which it allowed before", whereIs(p.path), kw)
	if onOld {
		msg = fmt.Sprintf("%s no longer has to match one of its %s branches, and one of them allowed everything it now allows", whereIs(p.path), kw)
	}
	p.emit(kindCompositionNarrowed, pathKW(p.path, kw), ov, nv, msg)
}

// againstDisjunction compares a source side that is not a disjunction with
// a target side that is: the families compare the source with the target's
// other keywords (keeping only findings in the breaking sense, since the
// branches may restore what those keywords lack), and the source must be
// covered by one branch, else the disjunction itself is reported.
func againstDisjunction(p *subPair, kw string, onOld bool) {
	c := p.c
	input := c.p.Direction == Input
	target := p.n
	if onOld {
		target = p.o
	}
	mark := len(c.found)
	p.compareWithoutDisjunction(target, kw, onOld)
	// Coverage by one branch: the target is K ∧ (B1 ∨ … ∨ Bn), and the
	// families compared the source with K, so the source must fit one Bj.
	src, dst, x := c.old, c.new, p.o
	if !input {
		src, dst, x = c.new, c.old, p.n
	}
	branches := schemaList(target, kw)
	for i := range branches {
		if !c.subset(x, src, &branches[i], dst, p.at.domain()) {
			continue
		}
		if len(c.found) == mark {
			safeDisjunctionChange(p, kw, onOld)
		}
		if kw == "oneOf" {
			p.oneOfAlsoMatches(x, src, branches, i, onOld)
		}
		return
	}
	if kw == "anyOf" && coveredByType(c, x, src, branches, dst, p.at.domain()) {
		if len(c.found) == mark {
			safeDisjunctionChange(p, kw, onOld)
		}
		return
	}
	p.noBranchCovers(kw, len(branches))
}

// compareWithoutDisjunction runs the families on the source side and the
// target's keywords other than kw (K), keeping only findings in the
// breaking sense, since the branches may restore what K lacks.
func (p *subPair) compareWithoutDisjunction(target *canon.Value, kw string, onOld bool) {
	c := p.c
	k := target.Clone()
	k.Delete(kw)
	if !k.Has("type") {
		if tv, ok := typesOf(target).typeValue(); ok && typesOf(target) != tAll {
			k.Set("type", tv)
		}
	}
	q := *p
	if onOld {
		q.o = &k
	} else {
		q.n = &k
	}
	q.to, q.tn = typesOf(q.o)&p.at.domain(), typesOf(q.n)&p.at.domain()
	mark := len(c.found)
	runFamilies(&q)
	want := narrows
	if c.p.Direction != Input {
		want = widens
	}
	kept := c.found[:mark]
	for _, f := range c.found[mark:] {
		if f.def != nil && f.def.Effect == want {
			kept = append(kept, f)
		}
	}
	c.found = kept
}

// oneOfAlsoMatches reports, for source x covered by oneOf branch i, each
// other branch x may also match: such a value is rejected under oneOf.
func (p *subPair) oneOfAlsoMatches(x *canon.Value, src *schemaSide, branches []canon.Value, i int, onOld bool) {
	c := p.c
	sd := c.new
	if onOld {
		sd = c.old
	}
	for k := range branches {
		if k == i || disjoint(c, x, src, &branches[k], sd) {
			continue
		}
		path := pathKW(p.path, "oneOf", strconv.Itoa(k))
		both := canon.ObjectValue(canon.Member{Key: "allOf", Value: canon.ArrayValue(x.Clone(), branches[k].Clone())})
		var f *finding
		if c.p.Direction == Input {
			f = p.emit(kindOneOfOverlap, path, nil, &branches[k], fmt.Sprintf("%s: a value the old schema accepts may match both oneOf branches %d and %d and is then rejected", whereIs(p.path), i, k))
		} else {
			f = p.emit(kindCompositionWidened, path, &branches[k], nil, fmt.Sprintf("%s: a result may match both old oneOf branches %d and %d, which the old schema rejects", whereIs(p.path), i, k))
		}
		f.samples, f.sampleSide = &both, src
		f.undecided = fmt.Sprintf("whether a value can match oneOf branches %d and %d is not decided, and none was found", i, k)
	}
}

// noBranchCovers reports the disjunction kw (of n branches) itself when no
// single branch covers the source side.
func (p *subPair) noBranchCovers(kw string, n int) {
	path := pathKW(p.path, kw)
	var f *finding
	if p.c.p.Direction == Input {
		f = p.emit(kindCompositionNarrowed, path, nil, getKW(p.n, kw), fmt.Sprintf("%s must now match one of %d %s branches, and no single branch accepts everything it accepted", whereIs(p.path), n, kw))
	} else {
		f = p.emit(kindCompositionWidened, path, getKW(p.o, kw), nil, fmt.Sprintf("%s no longer has to match one of its %d %s branches, and no single old branch accepts everything it now allows", whereIs(p.path), n, kw))
	}
	p.samplesFor(f)
	f.reject = nil
	f.undecided = fmt.Sprintf("no single %s branch covers the other schema, and whether their union does is not decided", kw)
}

// coveredByType reports whether the values of x of each JSON type (within
// dom) all fit one branch (a different branch per type allowed): x then
// fits the branches' union, as when one schema of type [object, string]
// meets anyOf [{object …}, {string}].
func coveredByType(c *schemaComparison, x *canon.Value, xs *schemaSide, branches []canon.Value, bs *schemaSide, dom types) bool {
	t := typesOf(x) & dom
	if t == 0 {
		return true
	}
	for _, one := range []types{tNull, tBool, tObject, tArray, tString, tInteger, tFraction} {
		if t&one == 0 {
			continue
		}
		fits := false
		for i := 0; i < len(branches) && !fits; i++ {
			fits = c.subset(x, xs, &branches[i], bs, one)
		}
		if !fits {
			return false
		}
	}
	return true
}

// similarity scores how alike two schemas are (types, shared properties)
// and whether a shared property has disjoint enums (a discriminator that
// tells them apart).
func similarity(a *canon.Value, as *schemaSide, b *canon.Value, bs *schemaSide) (score int, conflict bool) {
	ra, okA := as.resolve(a)
	rb, okB := bs.resolve(b)
	if !okA || !okB {
		return 0, false
	}
	ta, tb := typesOf(ra), typesOf(rb)
	if ta&tb == 0 {
		return 0, true
	}
	if ta == tb {
		score += 2
	}
	pa, pb := getKW(ra, "properties"), getKW(rb, "properties")
	for _, k := range memberNames(pa) {
		if pb == nil || pb.Get(k) == nil {
			continue
		}
		score++
		ea, eb := getKW(pa.Get(k), "enum"), getKW(pb.Get(k), "enum")
		if ea != nil && eb != nil && !enumsOverlap(ea, eb) {
			conflict = true
		}
	}
	return score, conflict
}
