package diff

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/toolset"
)

// facadeRules report a facade rule that OLD declares (Options.OldFacades)
// and NEW no longer does (Options.Facades): old calls that the rule
// carried to the tool now fail (docs/serve.md#facades). Each finding's
// witness is such an old call's arguments, made under the finding's tool
// name; it is checked: the old facade carries it to NEW's tool, the new
// side does not. A rule NEW no longer needs (its schema or another facade
// rule accepts the old call) is no finding.
var (
	ruleFacadeAliasRemoved = diffRule("facade-alias-removed", Breaking, ToolD, []string{"existence", "lifecycle"},
		"A facade alias was removed, so calls under the old tool name it routed now fail.")
	ruleFacadeRenameRemoved = diffRule("facade-rename-removed", Breaking, ToolD, []string{"existence", "lifecycle"},
		"A facade rename was removed, so calls that still use the old argument name now fail.")
	ruleFacadeDefaultRemoved = diffRule("facade-default-removed", Breaking, ToolD, []string{"requiredness", "lifecycle"},
		"A facade default was removed, so calls that omit the argument now fail.")
	ruleFacadeCoercionRemoved = diffRule("facade-coercion-removed", Breaking, ToolD, []string{"type", "lifecycle"},
		"A facade coercion was removed, so calls that pass the argument in its old type now fail.")
	ruleFacadeValueMapRemoved = diffRule("facade-value-map-removed", Breaking, ToolD, []string{"values", "lifecycle"},
		"A facade value map entry was removed, so calls that use the old enum value now fail.")
)

// facadeRules lists them for the catalog.
var facadeRules = []Rule{
	ruleFacadeAliasRemoved, ruleFacadeRenameRemoved, ruleFacadeDefaultRemoved, ruleFacadeCoercionRemoved, ruleFacadeValueMapRemoved,
}

// removedFacade is one facade rule OLD declares and NEW lacks: the tool
// the call is made under, the rule's pointer in the tool's facade block,
// its usage key (facade.RuleKey) and the candidate arguments of an old
// call that used it.
type removedFacade struct {
	rule   Rule
	call   string
	target string
	path   string
	key    string
	what   string
	args   []map[string]any
}

// facadeRemovals reports the facade rules of opts.OldFacades that
// opts.Facades drops, for the tools NEW still has (a removed tool is
// tool-removed's concern). Nil opts.Facades means NEW's facades are
// unknown (a server's tools/list): nothing is judged.
func (c *comparison) facadeRemovals() []Change {
	if c.opts.Facades == nil {
		return nil
	}
	var out []Change
	for _, tool := range sortedKeys(c.opts.OldFacades) {
		if c.new.Lookup(tool) == nil {
			continue
		}
		ob, nb := c.opts.OldFacades[tool], c.opts.Facades[tool]
		for _, rf := range c.removedRules(tool, ob, nb) {
			if ch, ok := c.facadeChange(rf); ok {
				out = append(out, ch)
			}
		}
	}
	return out
}

// removedRules lists what block ob declares for tool and nb does not.
func (c *comparison) removedRules(tool string, ob, nb facade.Block) []removedFacade {
	var out []removedFacade
	add := func(r Rule, call, path, key, what string, args ...map[string]any) {
		out = append(out, removedFacade{rule: r, call: call, target: tool, path: path, key: key, what: what, args: args})
	}
	for i, a := range ob.Aliases {
		if c.new.Lookup(a.Name) == nil && c.opts.Facades.AliasTarget(a.Name) == "" {
			add(ruleFacadeAliasRemoved, a.Name, pathKW("/facade/aliases", strconv.Itoa(i)), facade.RuleKey(facade.MemberAliases, a.Name),
				fmt.Sprintf("alias %s of %s", a.Name, tool), map[string]any{})
		}
	}
	for _, k := range sortedKeys(ob.Rename) {
		if _, ok := nb.Rename[k]; !ok {
			add(ruleFacadeRenameRemoved, tool, pathKW("/facade/rename", k), facade.RuleKey(facade.MemberRename, k),
				fmt.Sprintf("rename of %s to %s", k, ob.Rename[k]), sampleArgs(k, witnessSamples)...)
		}
	}
	for _, k := range sortedKeys(ob.Defaults) {
		if _, ok := nb.Defaults[k]; !ok {
			add(ruleFacadeDefaultRemoved, tool, pathKW("/facade/defaults", k), facade.RuleKey(facade.MemberDefaults, k), "default "+k, map[string]any{})
		}
	}
	for _, k := range sortedKeys(ob.Coerce) {
		if _, ok := nb.Coerce[k]; !ok {
			add(ruleFacadeCoercionRemoved, tool, pathKW("/facade/coerce", k), facade.RuleKey(facade.MemberCoerce, k),
				fmt.Sprintf("coercion of %s to %s", k, ob.Coerce[k]), sampleArgs(k, coercionSamples[ob.Coerce[k]])...)
		}
	}
	for _, k := range sortedKeys(ob.Values) {
		for _, v := range sortedKeys(ob.Values[k]) {
			if _, ok := nb.Values[k][v]; !ok {
				add(ruleFacadeValueMapRemoved, tool, pathKW("/facade/values", k, v), facade.RuleKey(facade.MemberValues, k, v),
					fmt.Sprintf("value map of %s: %s", k, v), sampleArgs(k, []any{v})...)
			}
		}
	}
	return out
}

// witnessSamples are the values tried for an argument of unknown type;
// coercionSamples those tried for an argument coerced to a type (each in
// another type the coercion converts).
var (
	witnessSamples  = []any{"x", json.Number("1"), true, []any{"x"}, map[string]any{}}
	coercionSamples = map[string][]any{
		"string": {json.Number("1"), true}, "number": {"1"}, "integer": {"1"}, "boolean": {"true"}, "array": {"x"},
	}
)

// sampleArgs is one argument object per value, with key (a name or a JSON
// Pointer) set to it.
func sampleArgs(key string, values []any) []map[string]any {
	toks, err := facade.ParseKey(key)
	if err != nil || len(toks) != 1 {
		return nil // nested keys: no witness is built
	}
	out := make([]map[string]any, len(values))
	for i, v := range values {
		out[i] = map[string]any{toks[0]: v}
	}
	return out
}

// facadeChange is the finding of one removed facade rule, with the first
// candidate call the old facade carries and the new one does not. When a
// candidate the old facade carries is carried by the new side too (NEW's
// schema or facade now accepts it), the rule is no longer needed: no
// finding. When the old facade carries no candidate, the finding is
// undecided.
func (c *comparison) facadeChange(rf removedFacade) (Change, bool) {
	ch := newChange(rf.rule, rf.call, rf.path)
	ch.Old = jsonString(rf.what)
	ch.Message = fmt.Sprintf("facade rule removed (%s): old calls it carried to %s now fail", rf.what, rf.target)
	nt := c.new.Lookup(rf.target)
	for _, args := range rf.args {
		if !c.carried(c.opts.OldFacades, nt, rf.call, args) {
			continue
		}
		if c.carried(c.opts.Facades, nt, rf.call, args) {
			return ch, false
		}
		ch.Witness = canonicalJSON(args)
		c.quiet(&ch, rf.target, rf.key)
		return ch, true
	}
	ch.Undecided = true
	ch.Reason = "no sample call was found that the removed rule carries (other required arguments, or a nested key)"
	c.quiet(&ch, rf.target, rf.key)
	return ch, true
}

// carried reports whether facade f turns a call of tool name with args
// into a call NEW's tool nt accepts.
func (c *comparison) carried(f facade.File, nt *toolset.Tool, name string, args map[string]any) bool {
	sc, err := c.compiled(nt.InputSchema())
	if err != nil {
		return false
	}
	validate := func(a map[string]any) error { return sc.Validate(a) }
	_, _, err = facade.Apply(f, nt.Name, validate, facade.Call{Tool: name, Arguments: args})
	return err == nil
}
