package diff

import (
	"fmt"

	"github.com/mcpctl/mcpctl/canon"
)

// Annotation rules: keywords that do not change validation but change
// behaviour (default) or how a model writes calls (description). Input
// only: they are what the server and the model read.

var annotationFamily = family{
	name: "annotation",
	rules: []ruleDef{
		rule("input-default-changed", Safe, annotates, tagsDocumentation,
			"An input default is added, removed or changed: calls that omit the argument may now behave differently (a notice; validation is unchanged)."),
		rule("input-description-changed", Safe, annotates, tagsDocumentation,
			"An input property's description changes: descriptions steer the model that writes the calls (a notice)."),
	},
	check: checkAnnotations,
}

func checkAnnotations(p *pair) {
	if p.c.p.Direction != Input || p.inv {
		return
	}
	od, nd := get(p.o, "default"), get(p.n, "default")
	if !sameJSON(od, nd) {
		f := p.emit("default-changed", pathKW(p.path, "default"), od, nd,
			fmt.Sprintf("%s default changed from %s to %s", where(p.path), quote(od), quote(nd)))
		notice(f, "calls that omit this argument now get "+quote(nd)+" instead of "+quote(od))
	}
	ods, nds := get(p.o, "description"), get(p.n, "description")
	if !sameJSON(ods, nds) {
		f := p.emit("description-changed", pathKW(p.path, "description"), ods, nds,
			fmt.Sprintf("%s description changed", where(p.path)))
		notice(f, "descriptions steer the model that writes calls; review the new wording")
	}
}

func sameJSON(a, b *canon.Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	return string(canon.AppendJCS(nil, a)) == string(canon.AppendJCS(nil, b))
}

func notice(f *finding, s string) {
	if f.def == nil {
		return
	}
	f.Notice = &s
}
