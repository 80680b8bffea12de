package diff

import (
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

// Type rules: the set of JSON types a schema accepts (integer ⊂ number).

var typeFamily = ruleFamily{
	name: "type",
	rules: []schemaRuleDef{
		kindRule(kindTypeNarrowed, Input, Breaking, narrows, schemaTagsType,
			"An input value accepts fewer JSON types (a type removed from a type list, number narrowed to integer, a schema made false): arguments of the lost types are rejected."),
		kindRule(kindTypeNarrowed, Output, Safe, narrows, schemaTagsType,
			"An output value allows fewer JSON types: every new result was valid before."),
		kindRule(kindTypeWidened, Input, Safe, widens, schemaTagsType,
			"An input value accepts more JSON types (integer widened to number, a type added): every old argument stays valid."),
		kindRule(kindTypeWidened, Output, Breaking, widens, schemaTagsType,
			"An output value allows more JSON types (or changed type): clients may receive values of a type they never handled."),
		kindRule(kindTypeCoercible, Input, Facade, narrows, schemaTagsType,
			"An input value changed type in a way a coerce facade translates (number, integer or boolean to string; a scalar to an array of it): old calls fail as sent, the facade fixes them."),
	},
	check: checkType,
}

func checkType(p *subPair) {
	if p.to == p.tn || (hasEnum(p.o) && hasEnum(p.n) && p.to != 0 && p.tn != 0) {
		return // two enums: the enum family compares their values
	}
	lost, gained := p.to&^p.tn, p.tn&^p.to
	dir := p.c.p.Direction
	path := pathKW(p.path, "type")
	ov, nv := typeKW(p.o), typeKW(p.n)
	msg := fmt.Sprintf("%s accepted %s and now accepts %s", whereIs(p.path), p.to, p.tn)
	if lost != 0 && (dir == Input || gained == 0) {
		if dir == Input && !p.inv {
			if f := coercible(p, lost, path, ov, nv, msg); f != nil {
				return
			}
		}
		f := p.emit(kindTypeNarrowed, path, ov, nv, msg)
		p.samplesFor(f)
		return
	}
	if gained != 0 {
		f := p.emit(kindTypeWidened, path, ov, nv, msg)
		p.samplesFor(f)
	}
}

// typeKW returns the "type" keyword of s, or the boolean schema itself.
func typeKW(s *canon.Value) *canon.Value {
	if s != nil && s.Kind == canon.Bool {
		return s
	}
	return getKW(s, "type")
}

func hasEnum(s *canon.Value) bool { return getKW(s, "enum") != nil }

// coercible reports a facade-level type change when a coerce facade turns
// every old value into a new one: number/integer/boolean to string, or a
// scalar to an array whose items accept it.
func coercible(p *subPair, lost types, path string, ov, nv *canon.Value, msg string) *finding {
	arg, ok := p.at.argPath()
	if !ok {
		return nil
	}
	target := ""
	switch {
	case p.tn&tString != 0 && lost&^(tNumber|tBool) == 0:
		// Every number and boolean prints as a string; the new string
		// constraints must accept those spellings.
		target = "string"
		for _, s := range []string{"1", "1.5", "-1", "true", "false"} {
			v := canon.StringValue(s)
			if !admits(p.n, &v) {
				target = ""
				break
			}
		}
	case p.tn&tArray != 0 && lost&(tArray|tObject) == 0:
		items := getKW(p.n, "items")
		if items == nil || p.c.subset(p.o, p.c.old, items, p.c.new, p.at.domain()) {
			if minI, ok := intOf(getKW(p.n, "minItems")); !ok || minI <= 1 {
				target = "array"
			}
		}
	}
	if target == "" {
		return nil
	}
	f := p.emit(kindTypeCoercible, path, ov, nv, msg+fmt.Sprintf("; a coerce facade (%s → %s) carries old calls", lost, target))
	p.c.suggest(f, facade.Block{Coerce: map[string]string{arg: target}})
	p.samplesFor(f)
	return f
}

// samplesFor sets the local samples of a finding: values of the side that
// must accept the witness there (old for input, new for output; swapped
// inside not), pre-filtered by the other side's local keywords.
func (p *subPair) samplesFor(f *finding) {
	src := p.c.p.Direction == Input
	if p.inv {
		src = !src
	}
	if src {
		f.samples, f.sampleSide, f.reject = p.o, p.c.old, p.n
	} else {
		f.samples, f.sampleSide, f.reject = p.n, p.c.new, p.o
	}
	if p.inv {
		f.reject = nil
	}
}
