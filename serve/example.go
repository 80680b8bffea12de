package serve

import (
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// exampleArgs returns a small arguments object valid under the tool's input
// schema, built from the schema (defaults, examples, const, enum members,
// minimal values) and checked with the validator; nil when none was found.
func (t *liveTool) exampleArgs() []byte {
	t.exampleOnce.Do(func() {
		if t.inValue == nil {
			return
		}
		v, ok := exampleFor(t.inValue, t.inValue, 0)
		if !ok || t.in.Validate(schema.Instance(&v)) != nil {
			return
		}
		t.example = appendOrdered(nil, &v)
	})
	return t.example
}

const maxExampleDepth = 8

func exampleFor(s, root *canon.Value, depth int) (canon.Value, bool) {
	if depth > maxExampleDepth {
		return canon.Value{}, false
	}
	if s.Kind == canon.Bool {
		return canon.ObjectValue(), s.Bool
	}
	if s.Kind != canon.Object {
		return canon.Value{}, false
	}
	for _, k := range []string{"default", "const"} {
		if v := s.Get(k); v != nil {
			return v.Clone(), true
		}
	}
	for _, k := range []string{"examples", "enum"} {
		if v := s.Get(k); v != nil && v.Kind == canon.Array && len(v.Items) > 0 {
			return v.Items[0].Clone(), true
		}
	}
	if ref := s.Get("$ref"); ref != nil && ref.Kind == canon.String && strings.HasPrefix(ref.Str, "#") {
		if target := lookupPointer(root, strings.TrimPrefix(ref.Str, "#")); target != nil {
			return exampleFor(target, root, depth+1)
		}
		return canon.Value{}, false
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if v := s.Get(k); v != nil && v.Kind == canon.Array {
			for i := range v.Items {
				if ex, ok := exampleFor(&v.Items[i], root, depth+1); ok {
					return ex, true
				}
			}
		}
	}
	typ := ""
	switch t := s.Get("type"); {
	case t == nil:
		if s.Has("properties") || s.Has("required") {
			typ = "object"
		}
	case t.Kind == canon.String:
		typ = t.Str
	case t.Kind == canon.Array && len(t.Items) > 0 && t.Items[0].Kind == canon.String:
		typ = t.Items[0].Str
	}
	switch typ {
	case "object":
		obj := canon.ObjectValue()
		props := s.Get("properties")
		if req := s.Get("required"); req != nil && req.Kind == canon.Array {
			for i := range req.Items {
				name := req.Items[i].Str
				var ps *canon.Value
				if props != nil {
					ps = props.Get(name)
				}
				val := canon.StringValue("example")
				if ps != nil {
					ex, ok := exampleFor(ps, root, depth+1)
					if !ok {
						return canon.Value{}, false
					}
					val = ex
				}
				obj.Set(name, val)
			}
		}
		return obj, true
	case "array":
		n := intKeyword(s, "minItems", 0)
		arr := canon.ArrayValue()
		if n > 0 {
			items := s.Get("items")
			if items == nil {
				return canon.Value{}, false
			}
			ex, ok := exampleFor(items, root, depth+1)
			if !ok {
				return canon.Value{}, false
			}
			for i := 0; i < n; i++ {
				arr.Items = append(arr.Items, ex.Clone())
			}
		}
		return arr, true
	case "string":
		var str string
		switch f := s.Get("format"); {
		case f == nil:
			str = "example"
		case f.Str == "date-time":
			str = "2025-01-31T12:00:00Z"
		case f.Str == "date":
			str = "2025-01-31"
		case f.Str == "time":
			str = "12:00:00Z"
		case f.Str == "email":
			str = "user@example.com"
		case f.Str == "uri" || f.Str == "url" || f.Str == "iri":
			str = "https://example.com/"
		case f.Str == "uuid":
			str = "123e4567-e89b-12d3-a456-426614174000"
		case f.Str == "ipv4":
			str = "192.0.2.1"
		default:
			str = "example"
		}
		if n := intKeyword(s, "minLength", 0); len(str) < n {
			str += strings.Repeat("x", n-len(str))
		}
		if n := intKeyword(s, "maxLength", -1); n >= 0 && len(str) > n {
			str = str[:n]
		}
		return canon.StringValue(str), true
	case "integer", "number":
		n := 1
		if m := s.Get("minimum"); m != nil && m.Kind == canon.Number {
			return canon.NumberValue(m.Str), true
		}
		if m := s.Get("exclusiveMinimum"); m != nil && m.Kind == canon.Number {
			if f, err := strconv.ParseFloat(m.Str, 64); err == nil {
				n = int(f) + 1
			}
		}
		if m := s.Get("maximum"); m != nil && m.Kind == canon.Number {
			if f, err := strconv.ParseFloat(m.Str, 64); err == nil && float64(n) > f {
				return canon.NumberValue(m.Str), true
			}
		}
		return canon.NumberValue(strconv.Itoa(n)), true
	case "boolean":
		return canon.BoolValue(false), true
	case "null":
		return canon.NullValue(), true
	}
	return canon.Value{}, false
}

func intKeyword(s *canon.Value, k string, def int) int {
	v := s.Get(k)
	if v == nil || v.Kind != canon.Number {
		return def
	}
	n, err := strconv.Atoi(v.Str)
	if err != nil {
		return def
	}
	return n
}
