package canon

import (
	"strconv"
	"strings"
)

// annotationDefaults are the MCP ToolAnnotations hints with their spec
// defaults (MCP 2025-11-25, schema.ts ToolAnnotations): a hint equal to its
// default says nothing and is the same as an absent one.
var annotationDefaults = map[string]bool{
	"readOnlyHint":    false,
	"destructiveHint": true,
	"idempotentHint":  false,
	"openWorldHint":   true,
}

// AnnotationDefault returns the spec default of an annotation hint and
// whether name is one of the four boolean hints.
func AnnotationDefault(name string) (def, ok bool) {
	def, ok = annotationDefaults[name]
	return def, ok
}

// NormalizeTool rewrites a tool object in place into one chosen spelling of
// each semantically equal form (docs/diff.md#normalization, the parts that need no schema
// reasoning):
//
//   - annotation hints equal to their spec defaults are dropped, and an
//     annotations object left empty is dropped;
//   - in every schema: const: x becomes enum: [x] (when there is no enum
//     and no $ref beside it);
//     a one-element type array becomes the string; draft-07 definitions
//     become $defs, with local "#/definitions/…" $refs rewritten; an empty
//     properties object and an empty required array are dropped.
//
// Apply it to a Clone when the original must be kept.
func NormalizeTool(tool *Value) {
	if tool.Kind != Object {
		return
	}
	if ann := tool.Get("annotations"); ann != nil && ann.Kind == Object {
		kept := ann.Members[:0]
		for _, m := range ann.Members {
			if def, ok := annotationDefaults[m.Key]; ok && m.Value.Kind == Bool && m.Value.Bool == def {
				continue
			}
			kept = append(kept, m)
		}
		ann.Members = kept
		if len(ann.Members) == 0 {
			tool.Delete("annotations")
		}
	}
	for _, key := range []string{"inputSchema", "outputSchema"} {
		if s := tool.Get(key); s != nil {
			NormalizeSchema(s)
		}
	}
}

// NormalizeSchema applies the schema part of NormalizeTool to a schema and
// all its subschemas, in place.
func NormalizeSchema(schema *Value) {
	if schema.Kind != Object {
		return
	}
	renameDefinitions(schema)
	WalkSchemas(schema, normalizeOne)
}

func normalizeOne(s *Value, _ string) {
	if s.Kind != Object {
		return
	}
	// Beside a $ref the two differ: validators of draft-06/07 apply a
	// const there but ignore an enum, so the const is left as written.
	if c := s.Get("const"); c != nil && !s.Has("enum") && !s.Has("$ref") {
		cv := c.Clone()
		s.Delete("const")
		s.Set("enum", ArrayValue(cv))
	}
	if t := s.Get("type"); t != nil && t.Kind == Array && len(t.Items) == 1 && t.Items[0].Kind == String {
		*t = t.Items[0]
	}
	if p := s.Get("properties"); p != nil && p.Kind == Object && len(p.Members) == 0 {
		s.Delete("properties")
	}
	if r := s.Get("required"); r != nil && r.Kind == Array && len(r.Items) == 0 {
		s.Delete("required")
	}
}

// renameDefinitions moves draft-07 definitions into $defs at the root and
// rewrites local references to them, unless a name would collide.
func renameDefinitions(root *Value) {
	defs := root.Get("definitions")
	if defs == nil || defs.Kind != Object {
		return
	}
	target := root.Get("$defs")
	if target != nil {
		if target.Kind != Object {
			return
		}
		for _, m := range defs.Members {
			if target.Has(m.Key) {
				return
			}
		}
	}
	moved := defs.Clone()
	root.Delete("definitions")
	if target = root.Get("$defs"); target != nil {
		target.Members = append(target.Members, moved.Members...)
	} else {
		root.Set("$defs", moved)
	}
	WalkSchemas(root, func(s *Value, _ string) {
		if r := s.Get("$ref"); r != nil && r.Kind == String {
			if rest, ok := strings.CutPrefix(r.Str, "#/definitions"); ok && (rest == "" || rest[0] == '/') {
				r.Str = "#/$defs" + rest
			}
		}
	})
}

// WalkSchemas calls fn for schema and every subschema reachable from it
// through schema keywords (properties/*, items, prefixItems/*, allOf/*, …,
// the same set the canonical form recognizes), parents before children. ptr
// is the RFC 6901 JSON Pointer of each subschema relative to schema ("" for
// the root). Boolean schemas are visited too.
func WalkSchemas(schema *Value, fn func(s *Value, ptr string)) {
	walkSchemas(schema, "", fn)
}

func walkSchemas(s *Value, ptr string, fn func(*Value, string)) {
	if s.Kind != Object && s.Kind != Bool {
		return
	}
	fn(s, ptr)
	if s.Kind != Object {
		return
	}
	for i := range s.Members {
		m := &s.Members[i]
		pos, ok := schemaKeywords[m.Key]
		if !ok {
			continue
		}
		base := ptr + "/" + EscapePointer(m.Key)
		switch pos {
		case posSchema:
			walkSchemas(&m.Value, base, fn)
		case posSchemaItems:
			if m.Value.Kind == Array {
				for j := range m.Value.Items {
					walkSchemas(&m.Value.Items[j], base+"/"+itoa(j), fn)
				}
			} else {
				walkSchemas(&m.Value, base, fn)
			}
		case posSchemaArray:
			if m.Value.Kind == Array {
				for j := range m.Value.Items {
					walkSchemas(&m.Value.Items[j], base+"/"+itoa(j), fn)
				}
			}
		case posSchemaMap, posDependencies:
			if m.Value.Kind == Object {
				for j := range m.Value.Members {
					walkSchemas(&m.Value.Members[j].Value, base+"/"+EscapePointer(m.Value.Members[j].Key), fn)
				}
			}
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
