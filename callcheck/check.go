package callcheck

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

var printer = message.NewPrinter(language.English)

// Problem is one reason arguments are invalid: where (a JSON Pointer into
// the arguments, "" for the whole object) and what is wrong, including what
// the schema expected.
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Check validates args (decoded JSON: map[string]any, []any, string,
// json.Number, bool, nil) against c, the compiled form of the schema value
// s. It returns true and "" when they are valid; otherwise false and the
// message of Message.
func Check(c *schema.Compiled, s *canon.Value, args any) (ok bool, msg string) {
	err := c.Validate(args)
	if err == nil {
		return true, ""
	}
	return false, Message(c, s, args, err)
}

// Message renders the validation error err of args as lines:
//
//	invalid arguments:
//	- POINTER: PROBLEM
//	…
//	example of valid arguments: {…}
//
// (the example line is left out when no valid example can be built).
func Message(c *schema.Compiled, s *canon.Value, args any, err error) string {
	var b strings.Builder
	b.WriteString("invalid arguments:")
	for _, p := range Problems(s, err) {
		b.WriteString("\n- ")
		if p.Pointer == "" {
			b.WriteString("(arguments)")
		} else {
			b.WriteString(p.Pointer)
		}
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	if ex, ok := Example(c, s, args); ok {
		b.WriteString("\nexample of valid arguments: ")
		b.Write(encode(ex))
	}
	return b.String()
}

// Problems lists the leaf problems of a validation error, sorted by pointer,
// without duplicates. s is the schema err was produced with (used to say
// what a missing property expects and which properties are allowed); an
// error that is not a *jsonschema.ValidationError becomes one problem at "".
func Problems(s *canon.Value, err error) []Problem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	collect(s, ve, &out)
	if len(out) == 0 {
		out = append(out, Problem{Pointer: schema.Pointer(ve.InstanceLocation), Message: ve.ErrorKind.LocalizedString(printer)})
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return cmp.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

func collect(root *canon.Value, e *jsonschema.ValidationError, out *[]Problem) {
	at := schema.Pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			collect(root, c, out)
		}
		return
	case *kind.AnyOf, *kind.OneOf:
		*out = append(*out, Problem{Pointer: at, Message: alternatives(root, e, k)})
		return
	case *kind.Required:
		sub := resolve(root, schemaPointer(e.SchemaURL))
		for _, name := range k.Missing {
			msg := "missing required property"
			if ps := sub.Get("properties").Get(name); ps != nil {
				if d := Describe(root, ps); d != "" {
					msg += "; expected " + d
				}
			}
			*out = append(*out, Problem{Pointer: at + "/" + canon.EscapePointer(name), Message: msg})
		}
		return
	case *kind.AdditionalProperties:
		sub := resolve(root, schemaPointer(e.SchemaURL))
		var allowed []string
		for _, m := range members(sub.Get("properties")) {
			allowed = append(allowed, m.Key)
		}
		msg := "unexpected property"
		if len(allowed) > 0 {
			msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
		} else {
			msg += " (no properties are allowed here)"
		}
		for _, name := range k.Properties {
			*out = append(*out, Problem{Pointer: at + "/" + canon.EscapePointer(name), Message: msg})
		}
		return
	case *kind.Type:
		sub := resolve(root, schemaPointer(e.SchemaURL))
		d := Describe(root, sub)
		if d == "" {
			var ws []string
			for _, w := range k.Want {
				ws = append(ws, article(w))
			}
			d = strings.Join(ws, " or ")
		}
		*out = append(*out, Problem{Pointer: at, Message: "got " + k.Got + ", expected " + d})
		return
	case *kind.Enum, *kind.Const:
		sub := resolve(root, schemaPointer(e.SchemaURL))
		var got any
		if en, ok := k.(*kind.Enum); ok {
			got = en.Got
		} else {
			got = k.(*kind.Const).Got
		}
		*out = append(*out, Problem{Pointer: at, Message: "got " + string(encode(got)) + ", expected " + Describe(root, sub)})
		return
	case *kind.FalseSchema:
		*out = append(*out, Problem{Pointer: at, Message: "not allowed here"})
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collect(root, c, out)
		}
		return
	}
	*out = append(*out, Problem{Pointer: at, Message: e.ErrorKind.LocalizedString(printer)})
}

// alternatives describes a failed anyOf/oneOf.
func alternatives(root *canon.Value, e *jsonschema.ValidationError, k jsonschema.ErrorKind) string {
	if o, ok := k.(*kind.OneOf); ok && len(o.Subschemas) > 1 {
		return fmt.Sprintf("matches %d of the oneOf alternatives, expected exactly one", len(o.Subschemas))
	}
	sub := resolve(root, schemaPointer(e.SchemaURL))
	kw := "anyOf"
	if _, ok := k.(*kind.OneOf); ok {
		kw = "oneOf"
	}
	var ds []string
	for _, alt := range elems(sub.Get(kw)) {
		if d := Describe(root, alt); d != "" {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return "matches none of the " + kw + " alternatives"
	}
	return "matches none of the alternatives; expected " + strings.Join(slices.Compact(ds), ", or ")
}

// schemaPointer extracts the JSON Pointer fragment of a jsonschema v6 schema
// URL ("mem:///schema.json#/properties/a" → "/properties/a").
func schemaPointer(u string) string {
	_, frag, _ := strings.Cut(u, "#")
	if p, err := url.PathUnescape(frag); err == nil {
		return p
	}
	return frag
}

// resolve returns the value at the JSON Pointer ptr in root, or nil.
func resolve(root *canon.Value, ptr string) *canon.Value {
	v := root
	if ptr == "" {
		return v
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case v == nil:
			return nil
		case v.Kind == canon.Object:
			v = v.Get(tok)
		case v.Kind == canon.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil
			}
			v = &v.Items[i]
		default:
			return nil
		}
	}
	return v
}

// deref follows a local $ref (one hop at a time, at most 32).
func deref(root, s *canon.Value) *canon.Value {
	for i := 0; i < 32 && s != nil; i++ {
		r := s.Get("$ref")
		if r == nil || r.Kind != canon.String || !strings.HasPrefix(r.Str, "#") {
			return s
		}
		frag := r.Str[1:]
		if p, err := url.PathUnescape(frag); err == nil {
			frag = p
		}
		s = resolve(root, frag)
	}
	return s
}

func encode(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(fmt.Sprint(v))
	}
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}
