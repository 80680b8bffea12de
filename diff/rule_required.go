package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// Requiredness rules: required and dependentRequired.

var requiredFamily = ruleFamily{
	name: "required",
	rules: []schemaRuleDef{
		kindRule(kindRequiredAdded, Input, Breaking, narrows, schemaTagsRequiredness,
			"An input property becomes required (new, or formerly optional) and has no default: calls that omit it are rejected."),
		kindRule(kindRequiredAddedWithDefault, Input, Facade, narrows, schemaTagsRequiredness,
			"An input property becomes required but declares a default: calls that omit it are rejected as sent, and a defaults facade fills it in."),
		kindRule(kindRequiredAdded, Output, Safe, narrows, schemaTagsRequiredness,
			"An output property becomes required: results always carry it, and every new result was valid before."),
		kindRule(kindRequiredRemoved, Input, Safe, widens, schemaTagsRequiredness,
			"An input property is no longer required: every old argument stays valid."),
		kindRule(kindRequiredRemoved, Output, Breaking, widens, schemaTagsRequiredness,
			"An output property is no longer required (made optional): clients that read it may find it missing."),
		kindRule(kindDependentRequiredAdded, Input, Breaking, narrows, schemaTagsRequiredness,
			"An input object gains a dependentRequired entry: when the key is present, calls must also send the dependent properties."),
		kindRule(kindDependentRequiredAdded, Output, Safe, narrows, schemaTagsRequiredness,
			"An output object gains a dependentRequired entry: every new result was valid before."),
		kindRule(kindDependentRequiredRemoved, Input, Safe, widens, schemaTagsRequiredness,
			"An input object loses a dependentRequired entry: every old argument stays valid."),
		kindRule(kindDependentRequiredRemoved, Output, Breaking, widens, schemaTagsRequiredness,
			"An output object loses a dependentRequired entry: results may lack properties clients relied on."),
	},
	check: checkRequired,
}

func checkRequired(p *subPair) {
	if p.to&p.tn&tObject == 0 || hasEnum(p.o) || hasEnum(p.n) {
		return
	}
	oreq, nreq := requiredNames(p.o), requiredNames(p.n)
	ov, nv := getKW(p.o, "required"), getKW(p.n, "required")
	dir := p.c.p.Direction
	for _, k := range sortedNames(nreq) {
		if slices.Contains(oreq, k) {
			continue
		}
		if old, ok := p.renamed[k]; ok && slices.Contains(oreq, old) {
			continue // a renamed required property: the rename finding covers it
		}
		path := pathKW(p.path, "properties", k)
		def := getKW(getKW(getKW(p.n, "properties"), k), "default")
		arg, argOK := p.at.argKey(k)
		if dir == Input && def != nil && argOK && !p.inv {
			f := p.emit(kindRequiredAddedWithDefault, path, ov, nv, fmt.Sprintf("%s is now required; its default %s can be filled in by a defaults facade", propWhere(p.path, k), quoteJSON(def)))
			p.c.suggest(f, facade.Block{Defaults: map[string]any{arg: schema.Instance(def)}})
			f.cands = append(f.cands, delKey(k))
			continue
		}
		f := p.emit(kindRequiredAdded, path, ov, nv, fmt.Sprintf("%s is now required", propWhere(p.path, k)))
		f.cands = append(f.cands, delKey(k))
	}
	for _, k := range sortedNames(oreq) {
		if slices.Contains(nreq, k) {
			continue
		}
		if slices.ContainsFunc(mapValues(p.renamed), func(old string) bool { return old == k }) {
			continue
		}
		path := pathKW(p.path, "properties", k)
		f := p.emit(kindRequiredRemoved, path, ov, nv, fmt.Sprintf("%s is no longer required", propWhere(p.path, k)))
		f.cands = append(f.cands, delKey(k))
	}
	checkDependentRequired(p)
}

func sortedNames(names []string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, canon.CompareKeys)
	return slices.Compact(out)
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func stringSet(v *canon.Value) []string {
	if v == nil || v.Kind != canon.Array {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind == canon.String {
			out = append(out, it.Str)
		}
	}
	return sortedNames(out)
}

func checkDependentRequired(p *subPair) {
	od, nd := getKW(p.o, "dependentRequired"), getKW(p.n, "dependentRequired")
	if od == nil && nd == nil {
		return
	}
	keys := unionNames(od, nd)
	for _, k := range keys {
		var os, ns []string
		var ov, nv *canon.Value
		if od != nil {
			ov = od.Get(k)
			os = stringSet(ov)
		}
		if nd != nil {
			nv = nd.Get(k)
			ns = stringSet(nv)
		}
		var added, removed []string
		for _, d := range ns {
			if !slices.Contains(os, d) {
				added = append(added, d)
			}
		}
		for _, d := range os {
			if !slices.Contains(ns, d) {
				removed = append(removed, d)
			}
		}
		path := pathKW(p.path, "dependentRequired", k)
		if len(added) > 0 {
			f := p.emit(kindDependentRequiredAdded, path, ov, nv, fmt.Sprintf("%s: when %q is present, %s must now be sent too", whereIs(p.path), k, strings.Join(added, ", ")))
			g := &instanceGen{sd: p.c.old}
			if p.c.p.Direction == Output {
				g.sd = p.c.new
			}
			ed := setKey(k, g.value(effective(p.o, k)))
			for _, d := range added {
				ed = append(ed, witnessEdit{key: d, del: true})
			}
			f.cands = append(f.cands, ed)
		}
		if len(removed) > 0 {
			f := p.emit(kindDependentRequiredRemoved, path, ov, nv, fmt.Sprintf("%s: when %q is present, %s need no longer be sent", whereIs(p.path), k, strings.Join(removed, ", ")))
			g := &instanceGen{sd: p.c.new}
			ed := setKey(k, g.value(effective(p.n, k)))
			for _, d := range removed {
				ed = append(ed, witnessEdit{key: d, del: true})
			}
			f.cands = append(f.cands, ed)
		}
	}
}
