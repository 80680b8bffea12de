package diff

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

// Enum rules: the values of enum (and const, which canon normalizes to a
// one-member enum). A schema whose types are finite (boolean, null) is
// compared as the enum of its values.

var enumFamily = ruleFamily{
	name: "enum",
	rules: []schemaRuleDef{
		kindRule(kindEnumValueRemoved, Input, Breaking, narrows, schemaTagsValues,
			"An input enum (or const) loses a value: arguments using it are rejected."),
		kindRule(kindEnumValueRemoved, Output, Safe, narrows, schemaTagsValues,
			"An output enum loses a value: results no longer use it, and every new result was valid before."),
		kindRule(kindEnumValueAdded, Input, Safe, widens, schemaTagsValues,
			"An input enum gains a value: every old argument stays valid."),
		kindRule(kindEnumValueAdded, Output, Breaking, widens, schemaTagsValues,
			"An output enum gains a value: clients may receive a value they do not know."),
		kindRule(kindEnumAdded, Input, Breaking, narrows, schemaTagsValues,
			"An input value that was free (any value of its type) is restricted to an enum or const: other values are rejected."),
		kindRule(kindEnumAdded, Output, Safe, narrows, schemaTagsValues,
			"An output value is restricted to an enum or const: every new result was valid before."),
		kindRule(kindEnumRemoved, Input, Safe, widens, schemaTagsValues,
			"An input enum or const restriction is dropped: any value of the type is accepted."),
		kindRule(kindEnumRemoved, Output, Breaking, widens, schemaTagsValues,
			"An output enum or const restriction is dropped: clients may receive values outside the old set."),
		kindRule(kindEnumValueRenamed, Input, Facade, narrows, schemaTagsValues,
			"An input enum value is replaced by another spelling of it (case or separators changed, e.g. open → OPEN): old calls fail as sent, a values facade maps them."),
	},
	check: checkEnum,
}

// enumMembers returns the values a schema is limited to: its enum, or the
// values of a finite type set (boolean, null); implicit is true for the
// latter; nil when the schema is not finite.
func enumMembers(s *canon.Value, draft int) (vals []canon.Value, implicit bool) {
	if e := getKW(s, "enum"); e != nil && e.Kind == canon.Array {
		for i := range e.Items {
			if admitsMember(s, &e.Items[i]) && admitsFormat(s, &e.Items[i], draft) {
				vals = append(vals, e.Items[i])
			}
		}
		if vals == nil {
			vals = []canon.Value{}
		}
		return vals, false
	}
	t := typesOf(s)
	if t == 0 || t&^(tBool|tNull) != 0 {
		return nil, false
	}
	if t&tNull != 0 {
		vals = append(vals, canon.NullValue())
	}
	if t&tBool != 0 {
		vals = append(vals, canon.BoolValue(false), canon.BoolValue(true))
	}
	return vals, true
}

// inDomain returns the members of vals whose type is in dom (vals itself
// when all are; nil stays nil).
func inDomain(vals []canon.Value, dom types) []canon.Value {
	if dom == tAll || vals == nil {
		return vals
	}
	out := []canon.Value{}
	for i := range vals {
		if kindOf(&vals[i])&dom != 0 {
			out = append(out, vals[i])
		}
	}
	return out
}

func jcsKey(v *canon.Value) string { return string(canon.AppendJCS(nil, v)) }

func checkEnum(p *subPair) {
	if !hasEnum(p.o) && !hasEnum(p.n) {
		return
	}
	if p.to == 0 || p.tn == 0 {
		return // a false schema: the type family reports it
	}
	om, oImp := enumMembers(p.o, p.c.old.draft)
	nm, nImp := enumMembers(p.n, p.c.new.draft)
	// Members of a type no instance here can have (a number in a
	// propertyNames enum) never matched and do not count.
	om, nm = inDomain(om, p.at.domain()), inDomain(nm, p.at.domain())
	e := enumPair{path: pathKW(p.path, "enum"), om: om, nm: nm, ov: enumValue(p.o, om, oImp), nv: enumValue(p.n, nm, nImp)}
	switch {
	case om != nil && nm != nil:
		p.enumChanged(e)
	case om != nil:
		p.enumGone(e)
	case nm != nil:
		p.enumNew(e)
	}
}

// enumPair is the enum of both sides at one location: its members (nil:
// no enum) and the keyword values reported (an implicit enum, such as
// const, as an array of its members).
type enumPair struct {
	path   string
	om, nm []canon.Value
	ov, nv *canon.Value
}

// enumValue is the value a finding reports for the enum of s: its enum
// keyword, or its members as an array when the enum is implicit.
func enumValue(s *canon.Value, members []canon.Value, implicit bool) *canon.Value {
	if !implicit {
		return getKW(s, "enum")
	}
	a := canon.ArrayValue(members...)
	return &a
}

// enumChanged compares two enums member by member; renamed values are
// reported by enumRenames.
func (p *subPair) enumChanged(e enumPair) {
	removed, added := membersMissing(e.om, e.nm), membersMissing(e.nm, e.om)
	removed, added = enumRenames(p, e.path, e.ov, e.nv, removed, added)
	if len(removed) > 0 {
		f := p.emit(kindEnumValueRemoved, e.path, e.ov, e.nv, fmt.Sprintf("%s no longer allows %s", whereIs(p.path), listValues(removed)))
		enumCands(p, f, removed)
	}
	if len(added) > 0 {
		f := p.emit(kindEnumValueAdded, e.path, e.ov, e.nv, fmt.Sprintf("%s now also allows %s", whereIs(p.path), listValues(added)))
		enumCands(p, f, added)
	}
}

// membersMissing returns the members of a that b does not list.
func membersMissing(a, b []canon.Value) []canon.Value {
	in := map[string]bool{}
	for i := range b {
		in[jcsKey(&b[i])] = true
	}
	var out []canon.Value
	for i := range a {
		if !in[jcsKey(&a[i])] {
			out = append(out, a[i])
		}
	}
	return out
}

// enumGone reports an enum that is gone: values the new schema rejects are
// removed, and the rest of the type opens up.
func (p *subPair) enumGone(e enumPair) {
	var rejected []canon.Value
	for i := range e.om {
		if !admitsMember(p.n, &e.om[i]) {
			rejected = append(rejected, e.om[i])
		}
	}
	if len(rejected) > 0 {
		f := p.emit(kindEnumValueRemoved, e.path, e.ov, e.nv, fmt.Sprintf("%s no longer allows %s", whereIs(p.path), listValues(rejected)))
		enumCands(p, f, rejected)
	}
	f := p.emit(kindEnumRemoved, e.path, e.ov, e.nv, fmt.Sprintf("%s is no longer limited to %s", whereIs(p.path), listValues(e.om)))
	p.samplesFor(f)
}

// enumNew reports an enum that appears: values the old schema rejected are
// added, and the rest of the type closes.
func (p *subPair) enumNew(e enumPair) {
	var fresh []canon.Value
	for i := range e.nm {
		if !admitsMember(p.o, &e.nm[i]) {
			fresh = append(fresh, e.nm[i])
		}
	}
	if len(fresh) > 0 {
		f := p.emit(kindEnumValueAdded, e.path, e.ov, e.nv, fmt.Sprintf("%s now also allows %s", whereIs(p.path), listValues(fresh)))
		enumCands(p, f, fresh)
	}
	f := p.emit(kindEnumAdded, e.path, e.ov, e.nv, fmt.Sprintf("%s is now limited to %s", whereIs(p.path), listValues(e.nm)))
	p.samplesFor(f)
}

// enumCands makes each listed value a witness candidate at the location.
func enumCands(p *subPair, f *finding, vals []canon.Value) {
	for _, v := range vals {
		f.cands = append(f.cands, []witnessEdit{{val: v}})
	}
}

// enumRenames reports, for input, removed string values that reappear as
// an added value spelled differently (case, "-", "_", spaces), as one
// facade finding with a values map; it returns the values left over.
func enumRenames(p *subPair, path string, ov, nv *canon.Value, removed, added []canon.Value) ([]canon.Value, []canon.Value) {
	if p.c.p.Direction != Input || p.inv || len(removed) == 0 || len(added) == 0 {
		return removed, added
	}
	arg, ok := p.at.argPath()
	if !ok {
		return removed, added
	}
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '-' || r == '_' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	byFold := map[string][]int{}
	for i, a := range added {
		if a.Kind == canon.String {
			byFold[fold(a.Str)] = append(byFold[fold(a.Str)], i)
		}
	}
	mapping := map[string]any{}
	usedAdded := map[int]bool{}
	var renamedFrom []canon.Value
	var restRemoved []canon.Value
	for _, r := range removed {
		if r.Kind == canon.String {
			if idx := byFold[fold(r.Str)]; len(idx) == 1 && !usedAdded[idx[0]] {
				usedAdded[idx[0]] = true
				mapping[r.Str] = added[idx[0]].Str
				renamedFrom = append(renamedFrom, r)
				continue
			}
		}
		restRemoved = append(restRemoved, r)
	}
	if len(mapping) == 0 {
		return removed, added
	}
	var restAdded []canon.Value
	for i, a := range added {
		if !usedAdded[i] {
			restAdded = append(restAdded, a)
		}
	}
	var pairs []string
	for _, r := range renamedFrom {
		pairs = append(pairs, fmt.Sprintf("%q → %q", r.Str, mapping[r.Str]))
	}
	f := p.emit(kindEnumValueRenamed, path, ov, nv, fmt.Sprintf("%s renamed enum values %s; a values facade maps old calls", whereIs(p.path), strings.Join(pairs, ", ")))
	p.c.suggest(f, facade.Block{Values: map[string]map[string]any{arg: mapping}})
	enumCands(p, f, renamedFrom)
	return restRemoved, restAdded
}

// listValues renders values for messages.
func listValues(vals []canon.Value) string {
	var parts []string
	for i := range vals {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vals)-8))
			break
		}
		parts = append(parts, quoteJSON(&vals[i]))
	}
	return strings.Join(parts, ", ")
}
