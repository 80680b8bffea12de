package diff

import (
	"fmt"
)

// Annotation rules: keywords that do not change validation but change
// behaviour (default) or how a model writes calls (description). Input
// only: they are what the server and the model read.

var annotationFamily = ruleFamily{
	name: "annotation",
	rules: []schemaRuleDef{
		schemaRule("input-default-changed", Safe, annotates, schemaTagsDocumentation,
			"An input default is added, removed or changed: calls that omit the argument may now behave differently (a notice; validation is unchanged)."),
		schemaRule("input-description-changed", Safe, annotates, schemaTagsDocumentation,
			"An input property's description changes: descriptions steer the model that writes the calls (a notice)."),
	},
	check: checkAnnotations,
}

func checkAnnotations(p *subPair) {
	if p.c.p.Direction != Input || p.inv {
		return
	}
	od, nd := getKW(p.o, "default"), getKW(p.n, "default")
	if !sameValue(od, nd) {
		f := p.emit("default-changed", pathKW(p.path, "default"), od, nd,
			fmt.Sprintf("%s default changed from %s to %s", whereIs(p.path), quoteJSON(od), quoteJSON(nd)))
		setNotice(f, "calls that omit this argument now get "+quoteJSON(nd)+" instead of "+quoteJSON(od))
	}
	ods, nds := getKW(p.o, "description"), getKW(p.n, "description")
	if !sameValue(ods, nds) {
		f := p.emit("description-changed", pathKW(p.path, "description"), ods, nds,
			fmt.Sprintf("%s description changed", whereIs(p.path)))
		setNotice(f, "descriptions steer the model that writes calls; review the new wording")
	}
}

func setNotice(f *finding, s string) {
	if f.def == nil {
		return
	}
	f.Notice = &s
}
