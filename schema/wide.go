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

// compileSplit compiles a document with wide "properties" maps in linear
// time. jsonschema/v6 looks every subschema it enqueues up in the list of
// those waiting in the same Compile call, so a document of n subschemas
// costs n² (20,000 properties: seconds). The self-contained properties of
// a wide object schema are moved, chunkSize at a time, into resources of
// their own ({"properties": {…}}), compiled first, each in a short list;
// the object schema keeps the rest and refers to the parts from its allOf,
// and its own Compile finds them done. Only object schemas without
// additionalProperties, unevaluatedProperties or $ref are split: there,
// "properties" may be spread over allOf branches without changing a
// verdict or an error (TestCompileWide). ok is false when nothing was split
// or anything failed: the caller compiles the document as it is, which
// reports errors with their location.
func compileSplit(doc any) (*Compiled, bool) {
	if refersIntoProperties(doc) {
		return nil, false // a moved property could be a reference's target
	}
	root, _ := doc.(map[string]any)
	dialect, _ := root["$schema"].(string)
	parts := map[string]any{}
	split, _ := splitWide(doc, dialect, parts)
	if len(parts) == 0 {
		return nil, false
	}
	c := newCompiler()
	for i := range len(parts) {
		url := partURL(i)
		if c.AddResource(url, parts[url]) != nil {
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

// splitWide returns doc with wide property maps split into parts (added
// to parts, each with the document's $schema so that it keeps its draft),
// at the root and in the object schemas below properties and items. doc is
// not modified; changed says whether the result differs.
func splitWide(doc any, dialect string, parts map[string]any) (any, bool) {
	s, ok := doc.(map[string]any)
	if !ok {
		return doc, false
	}
	props, _ := s["properties"].(map[string]any)
	out := map[string]any{}
	changed := false
	if np, ch := splitBelow(props, dialect, parts); ch {
		out["properties"], changed = np, true
		props = np
	}
	if ni, ch := splitWide(s["items"], dialect, parts); ch {
		out["items"], changed = ni, true
	}
	if kept, allOf, ok := splitHere(s, props, dialect, parts); ok {
		out["properties"], out["allOf"], changed = kept, allOf, true
	}
	if !changed {
		return doc, false
	}
	for k, v := range s {
		if _, set := out[k]; !set {
			out[k] = v
		}
	}
	return out, true
}

// splitBelow splits the object schemas that are values of props.
func splitBelow(props map[string]any, dialect string, parts map[string]any) (map[string]any, bool) {
	var np map[string]any
	for k, sub := range props {
		ns, ch := splitWide(sub, dialect, parts)
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

// splitHere moves the self-contained members of a wide props map of s
// into parts; it returns the members kept and the allOf that refers to
// the parts. ok is false when s is not split.
func splitHere(s, props map[string]any, dialect string, parts map[string]any) (kept map[string]any, allOf []any, ok bool) {
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
			url := partURL(len(parts))
			part := map[string]any{"properties": chunk}
			if dialect != "" {
				part["$schema"] = dialect
			}
			parts[url] = part
			allOf = append(allOf, map[string]any{"$ref": url})
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
