package callcheck

import (
	"maps"
	"slices"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/internal/instance"
	"github.com/mcpctl/mcpctl/schema"
)

// Example builds valid arguments for the schema s (compiled as c), close to
// args: the first instance of s that instance.Examples builds (diff's
// generator: defaults, examples and enum members preferred, then the least
// values the types and constraints allow, patterns, formats, unique items
// and exact big numbers included), then, one by one, every top-level
// argument of args that the schema documents, kept when the result still
// validates. Every candidate is checked with c; ok is false when none
// validates.
func Example(c *schema.Compiled, s *canon.Value, args any) (ex any, ok bool) {
	resolve := func(v *canon.Value) (*canon.Value, bool) {
		r := deref(s, v)
		return r, r != nil
	}
	found := instance.Examples(c, s, resolve, 1)
	if len(found) == 0 {
		return nil, false
	}
	base, isObj := found[0].(map[string]any)
	given, argsObj := args.(map[string]any)
	if !isObj || !argsObj {
		return found[0], true
	}
	props := deref(s, s).Get("properties")
	for _, k := range slices.Sorted(maps.Keys(given)) {
		if props.Get(k) == nil {
			continue
		}
		cand := maps.Clone(base)
		cand[k] = given[k]
		if c.Valid(cand) {
			base = cand
		}
	}
	return base, true
}
