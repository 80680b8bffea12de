package diff

import (
	"fmt"
	"slices"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/schema"
)

// cover marks facade findings that the declared facades carry (DESIGN
// §4.6): a finding is Covered when facade.Apply turns its witness (the old
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
		target = aliasTarget(f, ch.Tool)
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
		return false, fmt.Sprintf("input schema of %s does not compile: %v", target, err)
	}
	validate := func(a map[string]any) error { return sc.Validate(a) }
	if _, _, err := facade.Apply(f, target, validate, facade.Call{Tool: ch.Tool, Arguments: args}); err != nil {
		return false, oneLine(err.Error())
	}
	return true, ""
}

// aliasTarget returns the tool whose facade block declares alias name, the
// first in name order; "" when none does.
func aliasTarget(f facade.File, name string) string {
	for _, tool := range sortedKeys(f) {
		if slices.ContainsFunc(f[tool].Aliases, func(a facade.Alias) bool { return a.Name == name }) {
			return tool
		}
	}
	return ""
}
