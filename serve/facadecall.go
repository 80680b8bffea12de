package serve

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/facade"
)

// translate applies the facade of t (and of the alias the call came
// through) to args (DESIGN §6.1 facade shape): the alias's injected
// constants, renames, defaults and value maps, then the tool's renames,
// defaults, coercions and value maps. Keys are argument names or JSON
// Pointers into the arguments. It returns the translated copy, the facade
// rules that changed something, and whether anything changed.
func translate(t *liveTool, alias *aliasRoute, args *canon.Value) (canon.Value, []string, bool) {
	out := args.Clone()
	var rules []string
	note := func(rule string, did bool) {
		if did && (len(rules) == 0 || rules[len(rules)-1] != rule) {
			rules = append(rules, rule)
		}
	}
	if alias != nil {
		a := alias.alias
		for k, v := range a.Inject {
			note("inject", setIfMissing(&out, k, v, true))
		}
		for from, to := range a.Rename {
			note("rename", rename(&out, from, to))
		}
		for k, v := range a.Defaults {
			note("defaults", setIfMissing(&out, k, v, false))
		}
		for k, m := range a.Values {
			note("values", mapValue(&out, k, m))
		}
	}
	if b := t.facade; b != nil {
		for from, to := range b.Rename {
			note("rename", rename(&out, from, to))
		}
		for k, v := range b.Defaults {
			note("defaults", setIfMissing(&out, k, v, false))
		}
		for k, typ := range b.Coerce {
			note("coerce", coerce(&out, k, typ))
		}
		for k, m := range b.Values {
			note("values", mapValue(&out, k, m))
		}
	}
	return out, rules, len(rules) > 0
}

// locate returns the object holding key k (a name or a JSON Pointer) and
// the member name, creating nothing.
func locate(args *canon.Value, k string) (*canon.Value, string) {
	if !strings.HasPrefix(k, "/") {
		return args, k
	}
	i := strings.LastIndexByte(k, '/')
	parent := lookupPointer(args, k[:i])
	if parent == nil || parent.Kind != canon.Object {
		return nil, ""
	}
	name := strings.ReplaceAll(strings.ReplaceAll(k[i+1:], "~1", "/"), "~0", "~")
	return parent, name
}

func toValue(v any) (canon.Value, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return canon.Value{}, false
	}
	cv, err := canon.Parse(b)
	if err != nil {
		return canon.Value{}, false
	}
	return stripOffsets(cv), true
}

// setIfMissing sets k to v when absent (force: inject, which also
// overrides nothing present).
func setIfMissing(args *canon.Value, k string, v any, _ bool) bool {
	obj, name := locate(args, k)
	if obj == nil || obj.Has(name) {
		return false
	}
	cv, ok := toValue(v)
	if !ok {
		return false
	}
	obj.Set(name, cv)
	return true
}

func rename(args *canon.Value, from, to string) bool {
	obj, name := locate(args, from)
	if obj == nil {
		return false
	}
	v := obj.Get(name)
	if v == nil {
		return false
	}
	dst, dname := locate(args, to)
	if dst == nil || dst.Has(dname) {
		return false
	}
	val := *v
	obj.Delete(name)
	dst.Set(dname, val)
	return true
}

func coerce(args *canon.Value, k, typ string) bool {
	obj, name := locate(args, k)
	if obj == nil {
		return false
	}
	v := obj.Get(name)
	if v == nil {
		return false
	}
	switch typ {
	case "string":
		if v.Kind == canon.Number {
			*v = canon.StringValue(v.Str)
			return true
		}
		if v.Kind == canon.Bool {
			*v = canon.StringValue(strconv.FormatBool(v.Bool))
			return true
		}
	case "number", "integer":
		if v.Kind == canon.String {
			s := strings.TrimSpace(v.Str)
			if jsonNumber.MatchString(s) {
				if typ == "integer" {
					if _, err := strconv.ParseInt(s, 10, 64); err != nil {
						return false
					}
				}
				*v = canon.NumberValue(s)
				return true
			}
		}
	case "boolean":
		if v.Kind == canon.String {
			if b, err := strconv.ParseBool(v.Str); err == nil {
				*v = canon.BoolValue(b)
				return true
			}
		}
	case "array":
		if v.Kind != canon.Array {
			*v = canon.ArrayValue(*v)
			return true
		}
	}
	return false
}

func mapValue(args *canon.Value, k string, m map[string]any) bool {
	obj, name := locate(args, k)
	if obj == nil {
		return false
	}
	v := obj.Get(name)
	if v == nil {
		return false
	}
	mapOne := func(x *canon.Value) bool {
		if x.Kind != canon.String {
			return false
		}
		nv, ok := m[x.Str]
		if !ok {
			return false
		}
		cv, ok := toValue(nv)
		if !ok {
			return false
		}
		*x = cv
		return true
	}
	if v.Kind == canon.Array {
		did := false
		for i := range v.Items {
			did = mapOne(&v.Items[i]) || did
		}
		return did
	}
	return mapOne(v)
}

var _ = facade.Block{}
