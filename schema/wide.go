package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// wideMin is the member count from which the properties of an object
// schema are compiled apart (see compileSplit).
const wideMin = 64

// idKeywords make a subschema depend on where it sits in its document
// (references, identifiers, anchors): such members are never moved.
var idKeywords = map[string]bool{
	"$ref": true, "$dynamicRef": true, "$recursiveRef": true, "$id": true, "id": true,
	"$anchor": true, "$dynamicAnchor": true, "$recursiveAnchor": true,
}

// chunkSize is the number of properties moved into one part.
const chunkSize = 64

// compileSplit compiles wide and deep documents in linear time.
// jsonschema/v6 looks every subschema it enqueues up in the list of those
// waiting in the same Compile call, so a document of n subschemas costs n²
// (20,000 properties: seconds), and checks a document against its
// metaschema at a cost that grows with the cube of its depth (990 levels:
// seconds). So the self-contained properties of a wide object schema are
// moved, chunkSize at a time, into resources of their own ({"properties":
// {…}}) that the object schema refers to from its allOf, and every
// self-contained subschema cutDepth levels below the last cut becomes a
// resource that its parent refers to by $ref. The parts are compiled
// first, each in a short list; the document's own Compile finds them done.
// Object schemas with additionalProperties, unevaluatedProperties or $ref
// keep their properties in place; there, spreading "properties" over allOf
// branches would change verdicts. Verdicts and error leaves are those of
// the whole document (TestCompileWide, TestCompileDeep). ok is false when
// nothing was split or anything failed: the caller compiles the document
// as it is, which reports errors with their location.
func compileSplit(doc any) (*Compiled, bool) {
	if refersIntoProperties(doc) {
		return nil, false // a moved subschema could be a reference's target
	}
	root, _ := doc.(map[string]any)
	sp := &splitter{parts: map[string]any{}}
	sp.dialect, _ = root["$schema"].(string)
	split, _ := sp.split(doc, 0)
	if len(sp.parts) == 0 {
		return nil, false
	}
	c := newCompiler()
	for i := range len(sp.parts) { // deepest first: a part refers to earlier ones
		url := partURL(i)
		if c.AddResource(url, sp.parts[url]) != nil {
			return nil, false
		}
		if _, err := c.Compile(url); err != nil {
			return nil, false
		}
	}
	if c.AddResource(resourceURL, split) != nil {
		return nil, false
	}
	s, err := c.Compile(resourceURL)
	if err != nil {
		return nil, false
	}
	return &Compiled{s: s}, true
}

func partURL(i int) string { return fmt.Sprintf("mem:///part/%d.json", i) }

// splitter moves subschemas of one document into parts (resources of
// their own, each with the document's $schema so that it keeps its
// draft).
type splitter struct {
	dialect string
	parts   map[string]any
}

// cutDepth is the nesting (in object schemas below properties and items)
// from which a self-contained subschema becomes a part of its own, so
// that no resource is deep: jsonschema/v6 checks a document against its
// metaschema at a cost that grows with the cube of its depth.
const cutDepth = 32

// split returns doc with its wide property maps split and its deep
// subschemas moved into parts, at depth (counted from the last cut). doc
// is not modified; changed says whether the result differs.
func (sp *splitter) split(doc any, depth int) (any, bool) {
	s, ok := doc.(map[string]any)
	if !ok {
		return doc, false
	}
	props, _ := s["properties"].(map[string]any)
	out := map[string]any{}
	if np, ch := sp.below(props, depth); ch {
		out["properties"], props = np, np
	}
	if ni, ch := sp.child(s["items"], depth); ch {
		out["items"] = ni
	}
	if kept, allOf, ok := sp.wide(s, props); ok {
		out["properties"], out["allOf"] = kept, allOf
	}
	if len(out) == 0 {
		return doc, false
	}
	for k, v := range s {
		if _, set := out[k]; !set {
			out[k] = v
		}
	}
	return out, true
}

// child splits the subschema sub found one level below depth; past
// cutDepth a self-contained one is moved into a part and replaced by a
// reference to it.
func (sp *splitter) child(sub any, depth int) (any, bool) {
	if _, ok := sub.(map[string]any); !ok {
		return sub, false
	}
	if depth+1 < cutDepth || !selfContained(sub) {
		return sp.split(sub, depth+1)
	}
	inner, _ := sp.split(sub, 0)
	return map[string]any{"$ref": sp.add(inner.(map[string]any))}, true
}

// add stores a part (a copy of s with the document's $schema) and returns
// its URL.
func (sp *splitter) add(s map[string]any) string {
	part := make(map[string]any, len(s)+1)
	for k, v := range s {
		part[k] = v
	}
	if sp.dialect != "" {
		part["$schema"] = sp.dialect
	}
	url := partURL(len(sp.parts))
	sp.parts[url] = part
	return url
}

// below splits the subschemas that are values of props.
func (sp *splitter) below(props map[string]any, depth int) (map[string]any, bool) {
	var np map[string]any
	for k, sub := range props {
		ns, ch := sp.child(sub, depth)
		if !ch {
			continue
		}
		if np == nil {
			np = make(map[string]any, len(props))
			for a, b := range props {
				np[a] = b
			}
		}
		np[k] = ns
	}
	return np, np != nil
}

// wide moves the self-contained members of a wide props map of s into
// parts, chunkSize at a time; it returns the members kept and the allOf
// that refers to the parts. ok is false when s is not split.
func (sp *splitter) wide(s, props map[string]any) (kept map[string]any, allOf []any, ok bool) {
	if len(props) < wideMin {
		return nil, nil, false
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties", "$ref"} {
		if _, has := s[k]; has {
			return nil, nil, false
		}
	}
	if a, has := s["allOf"]; has {
		if allOf, ok = a.([]any); !ok {
			return nil, nil, false
		}
	}
	allOf = append([]any(nil), allOf...)
	kept = map[string]any{}
	var chunk map[string]any
	for _, k := range sortedKeys(props) {
		if !selfContained(props[k]) {
			kept[k] = props[k]
			continue
		}
		if chunk == nil {
			chunk = map[string]any{}
			allOf = append(allOf, map[string]any{"$ref": sp.add(map[string]any{"properties": chunk})})
		}
		chunk[k] = props[k]
		if len(chunk) == chunkSize {
			chunk = nil
		}
	}
	return kept, allOf, true
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// refersIntoProperties reports whether a reference in v may point into
// a properties map.
func refersIntoProperties(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if r, ok := e.(string); ok && idKeywords[k] && strings.Contains(r, "properties") {
				return true
			}
			if refersIntoProperties(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, refersIntoProperties)
	}
	return false
}

// selfContained reports whether no member anywhere in v is a reference,
// identifier or anchor keyword (or a property named like one: moving it
// would be harmless, but telling them apart is not worth it).
func selfContained(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if idKeywords[k] || !selfContained(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !selfContained(e) {
				return false
			}
		}
	}
	return true
}

// newCompiler returns a compiler set up as every mcpctl compile is.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	return c
}
