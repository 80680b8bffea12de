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

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// ErrNoRoute is returned by Apply when the call names neither the target
// tool nor one of the aliases its facade declares.
var ErrNoRoute = errors.New("no route to tool")

// ErrFacade is wrapped by errors about the facade itself rather than the
// call: a key that is not a valid JSON Pointer, an unknown coercion.
var ErrFacade = errors.New("invalid facade")

// Call is one tool call: a tool name and its arguments as decoded JSON
// (map[string]any, []any, string, json.Number or float64, bool, nil), the
// form schema.Instance and encoding/json with UseNumber produce.
type Call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// Step is one translation Apply made, in the order it made them. Kind and
// Detail together name the step, stably, for serve's per-tool counters and
// for reports: Kind is one of the Step* constants; Detail names what it
// touched, as the facade spells it — for a rename "perPage -> per_page" or
// "status -> /workflow_runs_filter/status", for an alias
// "list_workflows -> actions_list", for the others the argument name or
// JSON Pointer.
type Step struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	// Rules are the facade rules that made the step, by RuleKey: one,
	// except a value step over an array that mapped several entries; a
	// step of an alias's block names the alias (its inject, rename,
	// values and defaults are that one rule).
	Rules []string `json:"-"`
}

// The members of a facade block, as RuleKey names them.
const (
	MemberAliases  = "aliases"
	MemberRename   = "rename"
	MemberDefaults = "defaults"
	MemberCoerce   = "coerce"
	MemberValues   = "values"
)

// RuleKey names one rule of a tool's facade block, stably, for usage
// counting (serve's counters, mcpctl diff --usage, the gate's quiet
// period): a JSON Pointer (RFC 6901) into the block, the member then its
// tokens — "/rename/perPage", "/defaults/limit", "/coerce/limit",
// "/values/mode/low" (the key, then the old value), "/aliases/search_v1"
// (an alias by its name, which does not move as its index does).
func RuleKey(member string, tokens ...string) string {
	var b strings.Builder
	b.WriteString("/" + member)
	for _, t := range tokens {
		b.WriteString("/" + canon.EscapePointer(t))
	}
	return b.String()
}

func (s Step) String() string { return s.Kind + " " + s.Detail }

// The kinds of Step.
const (
	StepAlias   = "alias"   // the call's tool name was routed to the target
	StepInject  = "inject"  // a constant argument of the alias was set
	StepRename  = "rename"  // an argument was renamed or moved
	StepDefault = "default" // a missing argument was filled in
	StepValue   = "value"   // an enum value was mapped to its new spelling
	StepCoerce  = "coerce"  // an argument was converted to another type
)

// Apply translates call, made against an old contract, into a call of the
// tool target, using the facade that f declares for target (docs/serve.md#config).
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
// So a result without error always validates: a translation is attempted
// only when the call does not validate as sent, and kept only when it does.
//
// Keys. Every key (of rename, both sides; inject, defaults, values, coerce)
// is an argument name, or a JSON Pointer (RFC 6901) when it starts with "/":
// "/filters/tag" is the member tag of the object argument filters; array
// elements are addressed by index ("/labels/0"). Rename keys are old
// locations and its values new ones, so a rename can move an argument into
// or out of a sub-object ({status: /workflow_runs_filter/status}); the keys
// of inject, defaults, values and coerce are locations after renaming.
//
// Steps run in a fixed order — inject first for an alias, then rename,
// values, coerce, defaults — each over its keys in sorted order, so the
// result is deterministic:
//
//   - inject sets its location (creating missing parent objects; an equal
//     value already there takes the facade's spelling); when the call
//     already holds another value there (numbers compared by value) Apply
//     returns an error, since the old call contradicts the alias;
//   - rename moves the value at the old location to the new one, creating
//     missing parent objects, and removes parent objects the move left
//     empty; it is skipped when the old location is absent, when the new
//     one is already present, or when a parent on the new path is not an
//     object;
//   - values maps a string argument (or each string of an array argument)
//     through its table; numbers and booleans match the key that is their
//     JSON text ("1", "true");
//   - coerce converts by the exact rules of Coerce;
//   - defaults sets a location that is absent (creating parent objects).
//
// Values from the facade (inject, defaults, value maps) may come from YAML
// (int, float64, …); they are converted to the decoded-JSON form (numbers
// as json.Number) and copied, never shared with f.
//
// call.Arguments is never modified; the returned call holds a copy. A key
// that is not a valid JSON Pointer, or an unknown coercion, is an error
// wrapping ErrFacade.
func Apply(f File, target string, validate func(args map[string]any) error, call Call) (Call, []Step, error) {
	block := f[target]
	args := call.Arguments
	if args == nil {
		args = map[string]any{}
	}
	if call.Tool == target {
		first := validate(args)
		if first == nil {
			return call, nil, nil
		}
		args = schema.CloneInstance(args).(map[string]any)
		return applyTarget(block, target, validate, call, args, nil, first)
	}
	i := slices.IndexFunc(block.Aliases, func(a Alias) bool { return a.Name == call.Tool })
	if i < 0 {
		return call, nil, fmt.Errorf("%w: %q is not %q or one of its aliases", ErrNoRoute, call.Tool, target)
	}
	alias := block.Aliases[i]
	args = schema.CloneInstance(args).(map[string]any)
	steps, err := applyAlias(alias, target, call.Tool, args)
	if err != nil {
		return call, nil, err
	}
	first := validate(args)
	if first == nil {
		return Call{Tool: target, Arguments: args}, steps, nil
	}
	return applyTarget(block, target, validate, call, args, steps, first)
}

// applyTarget applies target's own translations (block) to args, after
// steps; the call they make is returned when it validates, else call
// and first, the error of the arguments before.
func applyTarget(block Block, target string, validate func(args map[string]any) error, call Call, args map[string]any, steps []Step, first error) (Call, []Step, error) {
	more, err := applyBlock(args, block.Rename, block.Values, block.Coerce, block.Defaults)
	if err != nil {
		return call, nil, fmt.Errorf("facade of %s: %w", target, err)
	}
	if len(more) == 0 || validate(args) != nil {
		return call, nil, first
	}
	return Call{Tool: target, Arguments: args}, append(steps, more...), nil
}

// applyAlias routes a call of alias (named called) to target: it injects
// the alias's values and applies its translations to args in place.
func applyAlias(alias Alias, target, called string, args map[string]any) ([]Step, error) {
	rule := []string{RuleKey(MemberAliases, alias.Name)}
	steps := []Step{{Kind: StepAlias, Detail: called + " -> " + target, Rules: rule}}
	for _, k := range slices.Sorted(maps.Keys(alias.Inject)) {
		if err := inject(args, k, alias.Inject[k]); err != nil {
			return nil, fmt.Errorf("alias %s of %s: %w", alias.Name, target, err)
		}
		steps = append(steps, Step{Kind: StepInject, Detail: k, Rules: rule})
	}
	more, err := applyBlock(args, alias.Rename, alias.Values, nil, alias.Defaults)
	if err != nil {
		return nil, fmt.Errorf("alias %s of %s: %w", alias.Name, target, err)
	}
	for i := range more {
		more[i].Rules = rule
	}
	return append(steps, more...), nil
}

// inject sets the argument at key k to value, which it may already hold.
func inject(args map[string]any, k string, value any) error {
	toks, err := parseKey(k)
	if err != nil {
		return fmt.Errorf("inject: %w", err)
	}
	want := jsonForm(value)
	if have, ok := get(args, toks); ok && !sameJSON(have, want) {
		return fmt.Errorf("argument %q is %s, inject wants %s", k, jsonText(have), jsonText(want))
	}
	if !set(args, toks, want) {
		return fmt.Errorf("inject %q: a parent of that location is not an object", k)
	}
	return nil
}

// applyBlock applies one set of translations to args in place: renames,
// value maps, coercions, defaults, in that order.
func applyBlock(args map[string]any, rename map[string]string, values map[string]map[string]any, coerce map[string]string, defaults map[string]any) ([]Step, error) {
	steps, err := applyRenames(args, rename)
	if err != nil {
		return nil, err
	}
	more, err := applyValues(args, values)
	if err != nil {
		return nil, err
	}
	steps = append(steps, more...)
	if more, err = applyCoerce(args, coerce); err != nil {
		return nil, err
	}
	steps = append(steps, more...)
	if more, err = applyDefaults(args, defaults); err != nil {
		return nil, err
	}
	return append(steps, more...), nil
}

// applyRenames moves each argument renamed, unless its new location is
// taken or cannot be set.
func applyRenames(args map[string]any, rename map[string]string) ([]Step, error) {
	var steps []Step
	for _, from := range slices.Sorted(maps.Keys(rename)) {
		to := rename[from]
		ft, err := parseKey(from)
		if err != nil {
			return nil, fmt.Errorf("rename: %w", err)
		}
		tt, err := parseKey(to)
		if err != nil {
			return nil, fmt.Errorf("rename %s: %w", from, err)
		}
		if slices.Equal(ft, tt) || isPrefix(ft, tt) {
			continue
		}
		if move(args, ft, tt) {
			steps = append(steps, Step{Kind: StepRename, Detail: from + " -> " + to, Rules: []string{RuleKey(MemberRename, from)}})
		}
	}
	return steps, nil
}

// move moves the value at ft to tt, when there is one and tt is free and
// can be set; it reports whether it moved it.
func move(args map[string]any, ft, tt []string) bool {
	v, ok := get(args, ft)
	if !ok {
		return false
	}
	if _, taken := get(args, tt); taken || !canSet(args, tt) {
		return false
	}
	remove(args, ft)
	if !set(args, tt, v) {
		// canSet said yes, and removing ft cannot make a parent of tt
		// a non-object; still, never lose the value.
		set(args, ft, v)
		return false
	}
	return true
}

// applyValues maps the values of the arguments through their tables.
func applyValues(args map[string]any, values map[string]map[string]any) ([]Step, error) {
	var steps []Step
	for _, k := range slices.Sorted(maps.Keys(values)) {
		toks, err := parseKey(k)
		if err != nil {
			return nil, fmt.Errorf("values: %w", err)
		}
		v, ok := get(args, toks)
		if !ok {
			continue
		}
		if nv, used := mapValue(v, values[k]); len(used) > 0 {
			set(args, toks, nv)
			rules := make([]string, len(used))
			for i, u := range used {
				rules[i] = RuleKey(MemberValues, k, u)
			}
			steps = append(steps, Step{Kind: StepValue, Detail: k, Rules: rules})
		}
	}
	return steps, nil
}

// applyCoerce converts the arguments by their coercions (Coerce).
func applyCoerce(args map[string]any, coerce map[string]string) ([]Step, error) {
	var steps []Step
	for _, k := range slices.Sorted(maps.Keys(coerce)) {
		toks, err := parseKey(k)
		if err != nil {
			return nil, fmt.Errorf("coerce: %w", err)
		}
		v, ok := get(args, toks)
		if !ok {
			continue
		}
		nv, changed, err := Coerce(v, coerce[k])
		if err != nil {
			return nil, fmt.Errorf("coerce %s: %w", k, err)
		}
		if changed {
			set(args, toks, nv)
			steps = append(steps, Step{Kind: StepCoerce, Detail: k, Rules: []string{RuleKey(MemberCoerce, k)}})
		}
	}
	return steps, nil
}

// applyDefaults sets the absent arguments that have a default.
func applyDefaults(args map[string]any, defaults map[string]any) ([]Step, error) {
	var steps []Step
	for _, k := range slices.Sorted(maps.Keys(defaults)) {
		toks, err := parseKey(k)
		if err != nil {
			return nil, fmt.Errorf("defaults: %w", err)
		}
		if _, ok := get(args, toks); ok {
			continue
		}
		if set(args, toks, jsonForm(defaults[k])) {
			steps = append(steps, Step{Kind: StepDefault, Detail: k, Rules: []string{RuleKey(MemberDefaults, k)}})
		}
	}
	return steps, nil
}

// ParseKey splits a facade key into reference tokens: a name not starting
// with "/" is one token (the top-level argument of that name, "/" and "~"
// included as is); a key starting with "/" is a JSON Pointer (RFC 6901 §3,
// "~1" for "/" and "~0" for "~"). "/" alone is the member named "". An
// error is a *KeyError, which wraps ErrFacade.
func ParseKey(key string) ([]string, error) { return parseKey(key) }

func parseKey(key string) ([]string, error) {
	if key == "" {
		return nil, &KeyError{Key: key, Reason: "empty key"}
	}
	if !strings.HasPrefix(key, "/") {
		return []string{key}, nil
	}
	toks, err := canon.PointerTokens(key)
	if err != nil {
		return nil, &KeyError{Key: key, Reason: fmt.Sprintf("key %q: \"~\" must be followed by 0 or 1 in a JSON Pointer (RFC 6901)", key)}
	}
	return toks, nil
}

// KeyError is an invalid facade key (an argument name or JSON Pointer).
// It wraps ErrFacade.
type KeyError struct {
	Key    string
	Reason string // what is wrong, without the "invalid facade" prefix
}

func (e *KeyError) Error() string { return ErrFacade.Error() + ": " + e.Reason }

// Unwrap returns ErrFacade.
func (e *KeyError) Unwrap() error { return ErrFacade }

func isPrefix(a, b []string) bool { return len(a) < len(b) && slices.Equal(a, b[:len(a)]) }

// index parses an array index token (RFC 6901 §4: digits, no leading zero).
func index(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// get returns the value at toks.
func get(root map[string]any, toks []string) (any, bool) {
	var cur any = root
	for _, t := range toks {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, ok := index(t, len(c))
			if !ok {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// canSet reports whether set(root, toks, v) would succeed.
func canSet(root map[string]any, toks []string) bool {
	var cur any = root
	for i, t := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok || last {
				return true // missing parents are created
			}
			cur = v
		case []any:
			j, ok := index(t, len(c))
			if !ok {
				return false
			}
			if last {
				return true
			}
			cur = c[j]
		default:
			return false
		}
	}
	return true
}

// set stores v at toks, creating missing parent objects; it reports false
// when a parent is neither an object nor an array holding that index.
func set(root map[string]any, toks []string, v any) bool {
	if !canSet(root, toks) {
		return false
	}
	var cur any = root
	for i, t := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[t] = v
				return true
			}
			next, ok := c[t]
			if !ok {
				next = map[string]any{}
				c[t] = next
			}
			cur = next
		case []any:
			j, _ := index(t, len(c))
			if last {
				c[j] = v
				return true
			}
			cur = c[j]
		}
	}
	return false
}

// remove deletes the object member at toks (array elements are never
// removed: that would shift their neighbours) and then every parent object
// the removal left empty.
func remove(root map[string]any, toks []string) {
	parents := []map[string]any{root}
	var cur any = root
	for _, t := range toks[:len(toks)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[t]
		case []any:
			j, ok := index(t, len(c))
			if !ok {
				return
			}
			cur = c[j]
		}
		m, ok := cur.(map[string]any)
		if !ok {
			parents = nil // an array on the way: prune nothing above it
			continue
		}
		parents = append(parents, m)
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return
	}
	delete(m, toks[len(toks)-1])
	// Prune emptied objects, innermost first, while the chain is all objects.
	if len(parents) != len(toks) {
		return
	}
	for i := len(parents) - 1; i > 0; i-- {
		if len(parents[i]) != 0 {
			break
		}
		delete(parents[i-1], toks[i-1])
	}
}

// mapValue maps a string value, or each string of an array, through table;
// numbers and booleans match by their JSON text. used lists the table's
// keys that matched, once each, in order (none: v is unchanged).
func mapValue(v any, table map[string]any) (out any, used []string) {
	switch x := v.(type) {
	case []any:
		arr := slices.Clone(x)
		for i, e := range x {
			if nv, key, ok := lookupValue(e, table); ok {
				arr[i] = nv
				if !slices.Contains(used, key) {
					used = append(used, key)
				}
			}
		}
		return arr, used
	default:
		if nv, key, ok := lookupValue(v, table); ok {
			return nv, []string{key}
		}
	}
	return v, nil
}

func lookupValue(v any, table map[string]any) (any, string, bool) {
	var key string
	switch x := v.(type) {
	case string:
		key = x
	case json.Number:
		key = x.String()
	case float64, int, int64:
		key = jsonText(x)
	case bool:
		key = strconv.FormatBool(x)
	default:
		return nil, "", false
	}
	nv, ok := table[key]
	if !ok {
		return nil, "", false
	}
	return jsonForm(nv), key, true
}

// Coerce converts v, a decoded JSON value, to the JSON type named by to,
// and reports whether it changed anything. The rules are exact:
//
//   - "string": a number becomes its JSON text as written (json.Number
//     "1.50" → "1.50"; a float64 in shortest form), a boolean "true" or
//     "false";
//   - "number": a string that is exactly a JSON number (RFC 8259 §6: no
//     surrounding space, no "+", no leading zeros, no hex, no NaN or
//     Infinity) becomes that number (json.Number of the text);
//   - "integer": the same, for a number whose value is integral ("20",
//     "2.0", "1e2"; not "2.5");
//   - "boolean": the strings "true" and "false", exactly, become booleans;
//   - "array": any value that is not an array and not null becomes a
//     one-element array.
//
// Anything else is returned unchanged (changed false), for the validator to
// judge. An unknown type name is an error wrapping ErrFacade.
func Coerce(v any, to string) (any, bool, error) {
	switch to {
	case "string":
		switch x := v.(type) {
		case json.Number:
			return x.String(), true, nil
		case float64:
			return strconv.FormatFloat(x, 'g', -1, 64), true, nil
		case int:
			return strconv.Itoa(x), true, nil
		case int64:
			return strconv.FormatInt(x, 10), true, nil
		case bool:
			return strconv.FormatBool(x), true, nil
		}
	case "number", "integer":
		s, ok := v.(string)
		if !ok || !canon.IsNumber(s) {
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
		if _, ok := v.([]any); !ok && v != nil {
			return []any{v}, true, nil
		}
	default:
		return v, false, fmt.Errorf("%w: unknown coercion %q (want string, number, integer, boolean or array)", ErrFacade, to)
	}
	return v, false, nil
}

// jsonForm converts a value from a facade file (YAML or JSON decoded) into
// a fresh copy in decoded-JSON form: numbers as json.Number, objects as
// map[string]any, arrays as []any.
func jsonForm(v any) any {
	switch x := v.(type) {
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonForm(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonForm(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonForm(e)
		}
		return out
	}
	return v
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
