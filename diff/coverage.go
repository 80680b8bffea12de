package diff

import (
	"fmt"
	"slices"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// cover marks facade findings that the declared facades carry (docs/diff.md#facade-coverage-and-usage): a finding is Covered when facade.Apply turns its witness (the old
// call's arguments) into arguments the new input schema accepts. The call
// is made under the finding's tool name; its target is that tool when the
// new side still has it, else the tool whose facade declares it as an alias
// (the first in name order). Output findings are never covered: facades
// translate calls, not results. A finding that cannot be checked (no
// witness, no target, a schema that does not compile) stays uncovered, and
// its Reason says why when it had none.
func (c *comparison) cover(changes []Change, f facade.File) {
	for i := range changes {
		ch := &changes[i]
		if ch.Level != Facade || ch.Direction == Output {
			continue
		}
		ok, why := c.covers(f, ch)
		ch.Covered = ok
		if !ok && why != "" && ch.Reason == "" {
			ch.Reason = "not covered: " + why
		}
	}
}

// covers applies f to one finding's witness.
func (c *comparison) covers(f facade.File, ch *Change) (bool, string) {
	if len(ch.Witness) == 0 || string(ch.Witness) == "null" {
		return false, "the finding has no witness to translate"
	}
	w, err := schema.Decode(ch.Witness)
	if err != nil {
		return false, fmt.Sprintf("witness: %v", err)
	}
	args, isObj := w.(map[string]any)
	if !isObj {
		return false, "the witness is not an argument object"
	}
	target := ch.Tool
	if c.new.Lookup(target) == nil {
		target = f.AliasTarget(ch.Tool)
		if target == "" {
			return false, fmt.Sprintf("no declared facade has an alias %q", ch.Tool)
		}
	}
	nt := c.new.Lookup(target)
	if nt == nil {
		return false, fmt.Sprintf("the facade routes %s to %s, which the new side does not have", ch.Tool, target)
	}
	sc, err := c.compiled(nt.InputSchema())
	if err != nil {
		return false, fmt.Sprintf("input schema of %s does not compile: %s", target, errorText(err))
	}
	validate := func(a map[string]any) error { return sc.Validate(a) }
	if _, _, err := facade.Apply(f, target, validate, facade.Call{Tool: ch.Tool, Arguments: args}); err != nil {
		return false, errorText(err)
	}
	return true, ""
}

// SuggestedFacades merges the facade suggestions of all findings into one
// facade file (docs/serve.md#config shape), ready to review and pass back as
// Options.Facades or --facades. Findings are taken in report order: aliases
// are appended, and a key that two suggestions map differently keeps the
// first mapping. Nil when no finding carries a suggestion.
func (r *Report) SuggestedFacades() facade.File {
	cs := make([]*Change, len(r.Changes))
	for i := range r.Changes {
		cs[i] = &r.Changes[i]
	}
	return mergeSuggestions(cs)
}

// mergeSuggestions merges the facade suggestions of the given findings, in
// their order, into one facade file: one block per tool. Nil when none
// carries a suggestion.
func mergeSuggestions(cs []*Change) facade.File {
	var f facade.File
	for _, c := range cs {
		if c.Facade == nil {
			continue
		}
		if f == nil {
			f = facade.File{}
		}
		b, s := f[c.Facade.Tool], c.Facade.Block
		b.Rename = mergeMap(b.Rename, s.Rename)
		b.Defaults = mergeMap(b.Defaults, s.Defaults)
		b.Coerce = mergeMap(b.Coerce, s.Coerce)
		b.Values = mergeMap(b.Values, s.Values)
		for _, a := range s.Aliases {
			if !slices.ContainsFunc(b.Aliases, func(x facade.Alias) bool { return x.Name == a.Name }) {
				b.Aliases = append(b.Aliases, a)
			}
		}
		f[c.Facade.Tool] = b
	}
	return f
}

// mergeMap adds the keys of src that dst lacks.
func mergeMap[V any](dst, src map[string]V) map[string]V {
	for k, v := range src {
		if dst == nil {
			dst = map[string]V{}
		}
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
	return dst
}
