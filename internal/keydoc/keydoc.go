// Package keydoc describes the keys of mcpctl's configuration files — the
// serve config, facade files and .mcpctl.yaml — as tables the loaders
// declare once and use for their "unknown key" messages, and from which the
// published JSON Schemas (docs/schema/*.json) and the reference
// (docs/config.md) are generated, so the three never disagree.
//
//	var ignoreKey = keydoc.Key{Type: keydoc.Object, Keys: []keydoc.Key{
//		{Name: "rule", Type: keydoc.String, Required: true, Doc: "…"},
//	}}
//	keydoc.Names(ignoreKey.Keys) // ["rule"], for unknown-key messages
//	keydoc.Schema("…", "…", ignoreKey) // a JSON Schema 2020-12 document
package keydoc

import (
	"fmt"
	"io"
	"strings"
)

// Type is what a key's value is.
type Type string

// The value types.
const (
	String   Type = "string"
	Scalar   Type = "string or number" // a string, or a number written unquoted (version: 1.4)
	Integer  Type = "integer"          // a positive whole number
	Boolean  Type = "boolean"
	Duration Type = "duration"   // "10s", "1m30s", or a number of seconds
	Date     Type = "date"       // 2027-01-31, or an RFC 3339 time
	Object   Type = "mapping"    // the fixed keys of Keys
	Map      Type = "mapping of" // free keys, each value as Values
	Array    Type = "list of"    // each item as Items
	AnyOf    Type = "one of"     // any of Alternatives
	Any      Type = "any"        // any value (Schema, when set, constrains it)
)

// Key is one key of a mapping (or, for Items, Values and Alternatives, a
// value without a name).
type Key struct {
	Name string
	Type Type
	// Default is the value used when the key is absent, as written in the
	// file; "" when there is none.
	Default  string
	Required bool
	// Doc says what the key means, in one or two sentences.
	Doc string
	// Deprecated, when set, names the key that replaces this one: it is
	// still read, with a warning, and left out of Names.
	Deprecated string
	// Enum lists the accepted values of a String.
	Enum []string
	// Keys are an Object's keys; Items an Array's items; Values a Map's
	// values; Alternatives an AnyOf's choices.
	Keys         []Key
	Items        *Key
	Values       *Key
	Alternatives []Key
	// Includes: below this key every value may be {$file: PATH} instead
	// (the serve config's tool entries).
	Includes bool
	// Schema is the JSON Schema of an Any value (nil: any value), or
	// constraints added to another type's schema (minProperties).
	Schema map[string]any
}

// Names returns the names of keys that are not deprecated, in order.
func Names(keys []Key) []string {
	var out []string
	for _, k := range keys {
		if k.Deprecated == "" {
			out = append(out, k.Name)
		}
	}
	return out
}

// Find returns the key named name among keys, or nil.
func Find(keys []Key, name string) *Key {
	for i := range keys {
		if keys[i].Name == name {
			return &keys[i]
		}
	}
	return nil
}

// Schema returns a JSON Schema (draft 2020-12) document for root with the
// given $id and title, ready for encoding/json.
func Schema(id, title string, root Key) map[string]any {
	s := schemaOf(root, false)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["$id"] = id
	s["title"] = title
	if uses(root) {
		s["$defs"] = map[string]any{"include": map[string]any{
			"description": "{$file: PATH}: the JSON or YAML file at PATH, relative to the folder of the file naming it, in place of this value",
			"type":        "object", "required": []any{"$file"}, "additionalProperties": false,
			"properties": map[string]any{"$file": map[string]any{"type": "string"}},
		}}
	}
	return s
}

// uses reports whether k or a key below it allows includes.
func uses(k Key) bool {
	if k.Includes {
		return true
	}
	for _, c := range children(k) {
		if uses(c) {
			return true
		}
	}
	return false
}

func children(k Key) []Key {
	out := append([]Key(nil), k.Keys...)
	out = append(out, k.Alternatives...)
	for _, p := range []*Key{k.Items, k.Values} {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// schemaOf returns k's value schema; incl wraps it (and, through k.Includes,
// everything below) in anyOf [include, schema].
func schemaOf(k Key, incl bool) map[string]any {
	incl = incl || k.Includes
	s := map[string]any{}
	switch k.Type {
	case String:
		s["type"] = "string"
		if len(k.Enum) > 0 {
			s["enum"] = anys(k.Enum)
		}
	case Scalar:
		s["type"] = []any{"string", "number"}
	case Integer:
		s["type"], s["minimum"] = "integer", 1
	case Boolean:
		s["type"] = "boolean"
	case Duration:
		s["type"] = []any{"string", "number"}
	case Date:
		s["type"] = "string"
	case Object:
		props := map[string]any{}
		var req []any
		for _, c := range k.Keys {
			props[c.Name] = wrap(schemaOf(c, incl), c, incl)
			if c.Required {
				req = append(req, c.Name)
			}
		}
		s["type"], s["properties"], s["additionalProperties"] = "object", props, false
		if len(req) > 0 {
			s["required"] = req
		}
	case Map:
		s["type"], s["additionalProperties"] = "object", wrap(schemaOf(*k.Values, incl), *k.Values, incl)
	case Array:
		s["type"], s["items"] = "array", wrap(schemaOf(*k.Items, incl), *k.Items, incl)
	case AnyOf:
		var alts []any
		for _, a := range k.Alternatives {
			alts = append(alts, schemaOf(a, incl))
		}
		s["anyOf"] = alts
	case Any:
		for key, v := range k.Schema {
			s[key] = v
		}
	}
	if k.Type != Any {
		for key, v := range k.Schema { // constraints beyond the keys (minProperties)
			s[key] = v
		}
	}
	if d := describe(k); d != "" {
		s["description"] = d
	}
	if k.Deprecated != "" {
		s["deprecated"] = true
	}
	return s
}

// wrap allows {$file: PATH} in place of a value below an Includes key.
func wrap(s map[string]any, k Key, incl bool) map[string]any {
	if !incl && !k.Includes {
		return s
	}
	return map[string]any{"anyOf": []any{map[string]any{"$ref": "#/$defs/include"}, s}}
}

// describe is a key's description: its Doc, its default, what replaces it.
func describe(k Key) string {
	d := k.Doc
	if k.Default != "" {
		d += " Default: " + k.Default + "."
	}
	if k.Deprecated != "" {
		d += " Deprecated: write " + k.Deprecated + " instead."
	}
	return strings.TrimSpace(d)
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Markdown writes root as a reference table, one row per key path
// (tools[].handler.exec.timeout), with its type, default and meaning.
func Markdown(w io.Writer, root Key) error {
	var b strings.Builder
	b.WriteString("| key | type | default | meaning |\n|---|---|---|---|\n")
	rows(&b, "", root)
	_, err := io.WriteString(w, b.String())
	return err
}

func rows(b *strings.Builder, path string, k Key) {
	if path != "" {
		row(b, path, k)
	}
	below(b, path, k)
}

// row writes the line of the key at path.
func row(b *strings.Builder, path string, k Key) {
	def := k.Default
	if def != "" {
		def = "`" + def + "`"
	}
	doc := k.Doc
	if k.Required {
		doc = "Required. " + doc
	}
	if k.Deprecated != "" {
		doc = fmt.Sprintf("Deprecated: write `%s` instead. %s", k.Deprecated, doc)
	}
	fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", path, typeText(k), def, strings.ReplaceAll(doc, "|", `\|`))
}

// below writes the rows of the keys inside k's value: an object's keys, or
// those of the objects its items, values or alternatives are (path[] for
// items, path.* for values of free keys).
func below(b *strings.Builder, path string, k Key) {
	switch k.Type {
	case Object:
		for _, c := range k.Keys {
			rows(b, join(path, c.Name), c)
		}
	case Array:
		below(b, path+"[]", *k.Items)
	case Map:
		below(b, join(path, "*"), *k.Values)
	case AnyOf:
		for _, a := range k.Alternatives {
			below(b, path, a)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// typeText names a value's type for the reference.
func typeText(k Key) string {
	switch k.Type {
	case String:
		if len(k.Enum) > 0 {
			return strings.Join(k.Enum, " \\| ")
		}
	case Map:
		return "mapping of " + typeText(*k.Values)
	case Array:
		return "list of " + typeText(*k.Items)
	case AnyOf:
		var alts []string
		for _, a := range k.Alternatives {
			alts = append(alts, typeText(a))
		}
		return strings.Join(alts, " or ")
	case Any:
		if t, ok := k.Schema["type"].(string); ok {
			return t
		}
		return "any"
	}
	return string(k.Type)
}
