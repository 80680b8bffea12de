package lint

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/schema"
)

// Draft2020 is the $schema URI of JSON Schema 2020-12, MCP's default dialect
// for tool schemas (MCP 2025-11-25).
const Draft2020 = "https://json-schema.org/draft/2020-12/schema"

// draftOf names the draft a $schema URI selects, as jsonschema v6 reads it
// (http or https, an empty fragment allowed), or "" when it names none.
func draftOf(uri string) string {
	u := strings.TrimSuffix(uri, "#")
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/draft-04/schema":
		return "draft-04"
	case "json-schema.org/draft-06/schema":
		return "draft-06"
	case "json-schema.org/draft-07/schema":
		return "draft-07"
	case "json-schema.org/draft/2019-09/schema":
		return "2019-09"
	case "json-schema.org/draft/2020-12/schema":
		return "2020-12"
	case "json-schema.org/schema":
		return "latest"
	}
	return ""
}

// dollarSchema returns the root $schema string of a schema, and whether there
// is one.
func dollarSchema(s *canon.Value) (string, bool) {
	if v := s.Get("$schema"); v != nil && v.Kind == canon.String {
		return v.Str, true
	}
	return "", false
}

// excerpt renders a JSON value compactly for a message, cut at 60 bytes.
func excerpt(v *canon.Value) string {
	b := canon.AppendJCS(nil, v)
	if len(b) <= 60 {
		return string(b)
	}
	cut := 57
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "..."
}

// validateSchema checks the inputSchema (required) or outputSchema of a tool.
func (c *collector) validateSchema(v *canon.Value, key string, required bool) {
	ptr := "/" + key
	notObject := rOutputSchemaNotObject
	if required {
		notObject = rInputSchemaNotObject
	}
	switch {
	case v == nil:
		if required {
			c.add(rInputSchemaMissing, ptr, `tool has no "inputSchema"; MCP requires one: use {"type":"object"} for a tool without arguments`)
		}
		return
	case v.Kind == canon.Null && required:
		c.add(rInputSchemaMissing, ptr, `"inputSchema" is null; MCP requires an object schema: use {"type":"object"} for a tool without arguments`)
		return
	case v.Kind == canon.Null:
		c.add(notObject, ptr, `"outputSchema" is null; omit it, or give an object schema such as {"type":"object","properties":{…}}`)
		return
	case v.Kind != canon.Object:
		c.add(notObject, ptr, `%q is %s %s, not a JSON object; MCP requires an object schema with "type": "object" at its root`, key, article(v.Kind), excerpt(v))
		return
	}
	switch t := v.Get("type"); {
	case t == nil && !v.Has("properties"):
		what, verb := "arguments", "accepts"
		if !required {
			what, verb = "results", "returns"
		}
		c.add(notObject, ptr, `%q has no "type" and no "properties", so the tool's %s are undocumented; MCP requires "type": "object" at its root: add it, with the properties the tool %s`,
			key, what, verb)
	case t == nil:
		c.add(notObject, ptr, `%q has no "type"; MCP requires "type": "object" at its root: add it`, key)
	case t.Kind == canon.String && t.Str == "object":
	case t.Kind == canon.Array && len(t.Items) == 1 && t.Items[0].Kind == canon.String && t.Items[0].Str == "object":
		c.add(notObject, ptr+"/type", `%q has "type": ["object"]; MCP requires the string "type": "object" at its root: write "object" without the array`, key)
	default:
		why := "tool arguments are always a JSON object"
		if !required {
			why = "structuredContent is always a JSON object"
		}
		c.add(notObject, ptr+"/type", `%q has "type": %s; MCP requires "type": "object" at its root (%s)`, key, excerpt(t), why)
	}
	c.compile(v, key)
}

func article(k canon.Kind) string {
	switch k {
	case canon.Array, canon.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// compile reports the reference problems of a schema (checkRefs: $refs that
// do not resolve or are not local, anchors and $ids declared twice), then
// compiles it without those keywords, so each is reported once, at its own
// pointer, in document order, and any other compile error is still found.
func (c *collector) compile(v *canon.Value, key string) {
	ptr := "/" + key
	bad := checkRefs(v, ptr, func(r Rule, refPtr, msg string) { c.add(r, ptr+refPtr, "%s", msg) })
	draft := "2020-12 (the default when $schema is absent)"
	if v.Has("$schema") {
		draft = "2020-12 (the default)"
	}
	if uri, ok := dollarSchema(v); ok {
		draft = draftOf(uri)
		if draft == "" {
			c.add(rSchemaInvalid, ptr+"/$schema",
				`%q has "$schema": %q, which names no JSON Schema draft mcpctl knows (draft-04, draft-06, draft-07, 2019-09, 2020-12) and mcpctl never fetches metaschemas: use %q or remove "$schema"`,
				key, uri, Draft2020)
			return
		}
	}
	target := v
	if len(bad) > 0 {
		clone := v.Clone()
		canon.WalkSchemas(&clone, func(s *canon.Value, p string) {
			for _, kw := range bad[p] {
				s.Delete(kw)
			}
		})
		target = &clone
	}
	_, err := schema.Compile(target)
	if err == nil {
		return
	}
	var ce *schema.CompileError
	if !errors.As(err, &ce) {
		c.add(rSchemaInvalid, ptr, "%q does not compile as JSON Schema %s: %v", key, draft, err)
		return
	}
	at := ""
	if ce.Pointer != "" {
		at = " at " + ce.Pointer
	}
	c.add(rSchemaInvalid, ptr+ce.Pointer, "%q does not compile as JSON Schema %s%s: %s", key, draft, at, ce.Reason)
}

func (c *collector) warnDraft(v *canon.Value, key string) {
	if v == nil || v.Kind != canon.Object {
		return
	}
	uri, ok := dollarSchema(v)
	if !ok || uri == Draft2020 || uri == Draft2020+"#" {
		return
	}
	name := draftOf(uri)
	switch name {
	case "":
		name = "an unknown dialect"
	case "2020-12":
		name = "2020-12 under a non-canonical URI"
	}
	c.add(rSchemaDraft, "/"+key+"/$schema",
		`%q declares "$schema": %q (%s); MCP uses JSON Schema 2020-12 and some clients reject or misread other drafts: remove "$schema" or set it to %q, rewriting draft-specific keywords (definitions to $defs, array-form items to prefixItems)`,
		key, uri, name, Draft2020)
}

// warnOpen reports every object schema in an inputSchema that does not say
// "additionalProperties": false. An object schema is one whose type is or
// includes "object", or that has no type but has properties.
func (c *collector) warnOpen(in *canon.Value) {
	canon.WalkSchemas(in, func(s *canon.Value, p string) {
		if !isObjectSchema(s) {
			return
		}
		ap := s.Get("additionalProperties")
		switch {
		case ap == nil:
			c.add(rObjectOpen, "/inputSchema"+p,
				`object schema at /inputSchema%s has no "additionalProperties"; strict-mode model APIs require every object to be closed: add "additionalProperties": false to a new tool (on a published tool it narrows what old calls may send, which diff reports as breaking)`, p)
		case ap.Kind == canon.Bool && !ap.Bool:
		default:
			c.add(rObjectOpen, "/inputSchema"+p+"/additionalProperties",
				`object schema at /inputSchema%s has "additionalProperties": %s; strict-mode model APIs require every object to be closed: use "additionalProperties": false in a new tool (on a published tool it narrows what old calls may send, which diff reports as breaking)`, p, excerpt(ap))
		}
	})
}

func isObjectSchema(s *canon.Value) bool {
	if s.Kind != canon.Object {
		return false
	}
	t := s.Get("type")
	switch {
	case t == nil:
		return s.Has("properties")
	case t.Kind == canon.String:
		return t.Str == "object"
	case t.Kind == canon.Array:
		for i := range t.Items {
			if t.Items[i].Kind == canon.String && t.Items[i].Str == "object" {
				return true
			}
		}
	}
	return false
}
