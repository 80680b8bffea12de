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
	"unicode/utf8"

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
// (the problems as Lines renders them, the whole object shown as
// "(arguments)"; the example line is left out when no valid example can be
// built).
func Message(c *schema.Compiled, s *canon.Value, args any, err error) string {
	var b strings.Builder
	writeMessage(&b, c, s, args, Problems(s, args, err))
	return b.String()
}

// writeMessage writes Message's lines for the problems ps of args.
func writeMessage(b *strings.Builder, c *schema.Compiled, s *canon.Value, args any, ps []Problem) {
	b.WriteString("invalid arguments:")
	b.WriteString(Lines(ps, "(arguments)"))
	if ex, ok := Example(c, s, args); ok {
		b.WriteString("\nexample of valid arguments: ")
		b.Write(encode(ex))
	}
}

// MaxLines is how many problems Lines renders; the rest are counted.
const MaxLines = 10

// Lines renders problems as lines, each preceded by a newline:
//
//	\n- POINTER: PROBLEM
//
// The pointer "" (the whole instance) is shown as root, e.g. "(arguments)"
// or "(output)". After MaxLines problems one line "- … and N more" counts
// the rest, so a message stays short whatever the instance holds.
func Lines(ps []Problem, root string) string {
	var b strings.Builder
	for i, p := range ps {
		if i == MaxLines {
			fmt.Fprintf(&b, "\n- … and %d more", len(ps)-i)
			break
		}
		b.WriteString("\n- ")
		if p.Pointer == "" {
			b.WriteString(root)
		} else {
			b.WriteString(p.Pointer)
		}
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	return b.String()
}

// Problems lists the leaf problems of a validation error of args, sorted by
// pointer, without duplicates. s is the schema err was produced with (used
// to say what a location expects and which properties are allowed); an
// error that is not a *jsonschema.ValidationError becomes one problem at "".
func Problems(s *canon.Value, args any, err error) []Problem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	var out []Problem
	c := collector{root: s, args: args, out: &out}
	c.collect(ve)
	if len(out) == 0 {
		out = append(out, Problem{Pointer: schema.Pointer(ve.InstanceLocation), Message: ve.ErrorKind.LocalizedString(printer)})
	}
	slices.SortStableFunc(out, func(a, b Problem) int { return cmp.Compare(a.Pointer, b.Pointer) })
	return slices.Compact(out)
}

type collector struct {
	root *canon.Value
	args any
	out  *[]Problem
}

func (c *collector) collect(e *jsonschema.ValidationError) {
	at := schema.Pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Group, *kind.Schema, *kind.Reference, *kind.AllOf:
		c.causes(e)
		return
	case *kind.AnyOf, *kind.OneOf:
		c.add(at, alternatives(c.root, e, k))
		return
	case *kind.Required:
		c.missing(e, at, k.Missing)
		return
	case *kind.AdditionalProperties:
		c.unexpected(e, at, k.Properties)
		return
	case *kind.Type:
		c.add(at, "got "+k.Got+", expected "+c.wantedType(e, k.Want))
		return
	case *kind.Enum:
		c.add(at, "got "+string(encode(k.Got))+", expected "+Describe(c.root, c.sub(e)))
		return
	case *kind.Const:
		c.add(at, "got "+string(encode(k.Got))+", expected "+Describe(c.root, c.sub(e)))
		return
	case *kind.FalseSchema:
		c.add(at, "not allowed here")
		return
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum, *kind.MultipleOf,
		*kind.MinLength, *kind.MaxLength, *kind.Pattern, *kind.Format, *kind.MinItems, *kind.MaxItems:
		if c.outOfBounds(e, at) {
			return
		}
	}
	if len(e.Causes) > 0 {
		c.causes(e)
		return
	}
	c.add(at, e.ErrorKind.LocalizedString(printer))
}

func (c *collector) add(at, msg string) {
	*c.out = append(*c.out, Problem{Pointer: at, Message: msg})
}

func (c *collector) causes(e *jsonschema.ValidationError) {
	for _, cause := range e.Causes {
		c.collect(cause)
	}
}

// sub is the subschema e was produced by.
func (c *collector) sub(e *jsonschema.ValidationError) *canon.Value {
	return resolve(c.root, schemaPointer(e.SchemaURL))
}

// missing reports each missing required property, with what it expects.
func (c *collector) missing(e *jsonschema.ValidationError, at string, names []string) {
	props := c.sub(e).Get("properties")
	for _, name := range names {
		msg := "missing required property"
		if ps := props.Get(name); ps != nil {
			if d := Describe(c.root, ps); d != "" {
				msg += "; expected " + d
			}
		}
		c.add(at+"/"+canon.EscapePointer(name), msg)
	}
}

// unexpected reports each property additionalProperties refuses, with the
// allowed ones.
func (c *collector) unexpected(e *jsonschema.ValidationError, at string, names []string) {
	var allowed []string
	for _, m := range members(c.sub(e).Get("properties")) {
		allowed = append(allowed, m.Key)
	}
	msg := "unexpected property"
	if len(allowed) > 0 {
		msg += " (allowed: " + strings.Join(allowed, ", ") + ")"
	} else {
		msg += " (no properties are allowed here)"
	}
	for _, name := range names {
		c.add(at+"/"+canon.EscapePointer(name), msg)
	}
}

// wantedType describes what a type error's schema expects: the subschema
// described, else the wanted types.
func (c *collector) wantedType(e *jsonschema.ValidationError, want []string) string {
	if d := Describe(c.root, c.sub(e)); d != "" {
		return d
	}
	var ws []string
	for _, w := range want {
		ws = append(ws, article(w))
	}
	return strings.Join(ws, " or ")
}

// outOfBounds reports a value outside its subschema's bounds, format or
// pattern as the value and what is expected, when both can be said.
func (c *collector) outOfBounds(e *jsonschema.ValidationError, at string) bool {
	v, ok := instanceAt(c.args, e.InstanceLocation)
	if !ok {
		return false
	}
	d := Describe(c.root, c.sub(e))
	if d == "" {
		return false
	}
	c.add(at, "got "+brief(v)+", expected "+d)
	return true
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

// instanceAt returns the value at a jsonschema instance location.
func instanceAt(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// brief renders a value as JSON, shortened to about 60 bytes.
func brief(v any) string {
	b := string(encode(v))
	if len(b) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut] + "…"
	}
	switch v := v.(type) {
	case []any:
		return fmt.Sprintf("%s (%d items)", b, len(v))
	case string:
		return fmt.Sprintf("%s (%d characters)", b, utf8.RuneCountInString(v))
	}
	return b
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
func resolve(root *canon.Value, ptr string) *canon.Value { return root.At(ptr) }

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
