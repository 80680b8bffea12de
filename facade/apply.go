package facade

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// ErrNoRoute is returned by Apply when the call names neither the target
// tool nor one of the aliases its facade declares.
var ErrNoRoute = errors.New("no route to tool")

// Call is one tool call: a tool name and its arguments as decoded JSON
// (map[string]any, []any, string, json.Number or float64, bool, nil), the
// form schema.Instance and encoding/json with UseNumber produce.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// Step is one translation Apply made, in the order it made them. Kind is
// one of the Step* constants; Detail names what it touched (for a rename
// "perPage -> per_page", for an alias "list_workflows -> actions_list", for
// the others the argument name). serve counts translations by tool and
// Kind.
type Step struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

func (s Step) String() string { return s.Kind + " " + s.Detail }

// The kinds of Step.
const (
	StepAlias   = "alias"   // the call's tool name was routed to the target
	StepInject  = "inject"  // a constant argument of the alias was set
	StepRename  = "rename"  // an argument was renamed
	StepDefault = "default" // a missing argument was filled in
	StepValue   = "value"   // an enum value was mapped to its new spelling
	StepCoerce  = "coerce"  // an argument was converted to another type
)

// Apply translates call, made against an old contract, into a call of the
// tool target, using the facade that f declares for target (DESIGN §6.1).
// validate checks arguments against target's input schema (nil error =
// accepted).
//
// Routing:
//
//   - call.Tool == target: a call that validates as sent is returned
//     unchanged with no steps. Otherwise the tool-level block (rename,
//     values, coerce, defaults) is applied; if the translated arguments
//     validate they are returned with the steps, else the original
//     validation error is returned and the call is left as sent.
//   - call.Tool is an alias of target: the call is routed (StepAlias), the
//     alias's inject, rename, values and defaults are applied; if that
//     validates it is returned, else the tool-level block is applied on top
//     and validated. A failure returns the validation error of the routed
//     call (before the tool-level block).
//   - otherwise: an error wrapping ErrNoRoute.
//
// Key conventions: rename keys are old argument names and its values new
// names; the keys of inject, defaults, values and coerce are names after
// renaming. Steps run in a fixed order (rename, values, coerce, defaults
// for a block; inject first for an alias), each over its keys in sorted
// order, so the result is deterministic. An inject that would overwrite an
// argument the call already holds with another value is an error; a rename
// whose new name is already present is skipped.
//
// This first version handles top-level arguments only: a key that is a
// JSON Pointer (starting with "/") returns an error wrapping
// errors.ErrUnsupported rather than being ignored. Coercions: "string"
// (number or boolean to its JSON text), "number" and "integer" (a string
// holding a JSON number, an integral one for "integer", to that number),
// "boolean" ("true"/"false"), "array" (x to [x]); a value that does not
// convert is left for the validator to reject.
//
// call.Arguments is never modified; the returned call holds a copy.
func Apply(f File, target string, validate func(args map[string]any) error, call Call) (Call, []Step, error) {
	block := f[target]
	args := maps.Clone(call.Arguments)
	if args == nil {
		args = map[string]any{}
	}
	if call.Tool == target {
		first := validate(args)
		if first == nil {
			return call, nil, nil
		}
		steps, err := applyBlock(args, block.Rename, block.Values, block.Coerce, block.Defaults)
		if err != nil {
			return call, nil, fmt.Errorf("facade of %s: %w", target, err)
		}
		if len(steps) == 0 || validate(args) != nil {
			return call, nil, first
		}
		return Call{Tool: target, Arguments: args}, steps, nil
	}

	i := slices.IndexFunc(block.Aliases, func(a Alias) bool { return a.Name == call.Tool })
	if i < 0 {
		return call, nil, fmt.Errorf("%w: %q is not %q or one of its aliases", ErrNoRoute, call.Tool, target)
	}
	alias := block.Aliases[i]
	steps := []Step{{Kind: StepAlias, Detail: call.Tool + " -> " + target}}
	for _, k := range slices.Sorted(maps.Keys(alias.Inject)) {
		if isPointer(k) {
			return call, nil, fmt.Errorf("alias %s of %s: inject key %q: %w", alias.Name, target, k, errors.ErrUnsupported)
		}
		want := alias.Inject[k]
		if have, ok := args[k]; ok && !sameJSON(have, want) {
			return call, nil, fmt.Errorf("alias %s of %s: argument %q is %s, inject wants %s", alias.Name, target, k, jsonText(have), jsonText(want))
		}
		args[k] = want
		steps = append(steps, Step{Kind: StepInject, Detail: k})
	}
	more, err := applyBlock(args, alias.Rename, alias.Values, nil, alias.Defaults)
	if err != nil {
		return call, nil, fmt.Errorf("alias %s of %s: %w", alias.Name, target, err)
	}
	steps = append(steps, more...)
	first := validate(args)
	if first == nil {
		return Call{Tool: target, Arguments: args}, steps, nil
	}
	more, err = applyBlock(args, block.Rename, block.Values, block.Coerce, block.Defaults)
	if err != nil {
		return call, nil, fmt.Errorf("facade of %s: %w", target, err)
	}
	if len(more) == 0 || validate(args) != nil {
		return call, nil, first
	}
	return Call{Tool: target, Arguments: args}, append(steps, more...), nil
}

// applyBlock applies one set of translations to args in place.
func applyBlock(args map[string]any, rename map[string]string, values map[string]map[string]any, coerce map[string]string, defaults map[string]any) ([]Step, error) {
	var steps []Step
	for _, table := range [][]string{slices.Collect(maps.Keys(rename)), slices.Collect(maps.Keys(values)), slices.Collect(maps.Keys(coerce)), slices.Collect(maps.Keys(defaults))} {
		for _, k := range table {
			if isPointer(k) {
				return nil, fmt.Errorf("key %q: %w", k, errors.ErrUnsupported)
			}
		}
	}
	for _, from := range slices.Sorted(maps.Keys(rename)) {
		to := rename[from]
		if isPointer(to) {
			return nil, fmt.Errorf("rename %s: target %q: %w", from, to, errors.ErrUnsupported)
		}
		v, ok := args[from]
		if !ok || from == to {
			continue
		}
		if _, taken := args[to]; taken {
			continue
		}
		delete(args, from)
		args[to] = v
		steps = append(steps, Step{Kind: StepRename, Detail: from + " -> " + to})
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v, ok := args[k]
		if !ok {
			continue
		}
		if nv, changed := mapValue(v, values[k]); changed {
			args[k] = nv
			steps = append(steps, Step{Kind: StepValue, Detail: k})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(coerce)) {
		v, ok := args[k]
		if !ok {
			continue
		}
		nv, changed, err := coerceValue(v, coerce[k])
		if err != nil {
			return nil, fmt.Errorf("coerce %s: %w", k, err)
		}
		if changed {
			args[k] = nv
			steps = append(steps, Step{Kind: StepCoerce, Detail: k})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(defaults)) {
		if _, ok := args[k]; ok {
			continue
		}
		args[k] = defaults[k]
		steps = append(steps, Step{Kind: StepDefault, Detail: k})
	}
	return steps, nil
}

func isPointer(k string) bool { return strings.HasPrefix(k, "/") }

// mapValue maps a string value, or each string of an array, through table.
func mapValue(v any, table map[string]any) (any, bool) {
	switch x := v.(type) {
	case string:
		if nv, ok := table[x]; ok {
			return nv, true
		}
	case []any:
		out := slices.Clone(x)
		changed := false
		for i, e := range x {
			if s, ok := e.(string); ok {
				if nv, ok := table[s]; ok {
					out[i] = nv
					changed = true
				}
			}
		}
		return out, changed
	}
	return v, false
}

// coerceValue converts v to the JSON type named by to, reporting whether
// it changed anything. A value that does not convert is returned as is.
func coerceValue(v any, to string) (any, bool, error) {
	switch to {
	case "string":
		switch x := v.(type) {
		case json.Number:
			return x.String(), true, nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), true, nil
		case bool:
			return strconv.FormatBool(x), true, nil
		}
	case "number", "integer":
		s, ok := v.(string)
		if !ok {
			return v, false, nil
		}
		s = strings.TrimSpace(s)
		if !json.Valid([]byte(s)) || !isNumberText(s) {
			return v, false, nil
		}
		if to == "integer" {
			r, ok := new(big.Rat).SetString(s)
			if !ok || !r.IsInt() {
				return v, false, nil
			}
		}
		return json.Number(s), true, nil
	case "boolean":
		if s, ok := v.(string); ok && (s == "true" || s == "false") {
			return s == "true", true, nil
		}
	case "array":
		if _, ok := v.([]any); !ok {
			return []any{v}, true, nil
		}
	default:
		return v, false, fmt.Errorf("unknown coercion %q (want string, number, integer, boolean or array)", to)
	}
	return v, false, nil
}

func isNumberText(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

// sameJSON reports whether two decoded JSON values encode identically
// (numbers compared by value).
func sameJSON(a, b any) bool {
	return jsonText(normNumbers(a)) == jsonText(normNumbers(b))
}

// normNumbers rewrites numbers as their exact rational value behind a NUL
// marker, so that 1, 1.0 and json.Number("1e0") compare equal. (Only a
// string that itself starts with U+0000 and a rational could collide.)
func normNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			return "\x00" + r.RatString()
		}
	case float64:
		if r := new(big.Rat).SetFloat64(x); r != nil {
			return "\x00" + r.RatString()
		}
	case int:
		return "\x00" + strconv.Itoa(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = normNumbers(x[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normNumbers(e)
		}
		return out
	}
	return v
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}
