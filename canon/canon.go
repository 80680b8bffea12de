package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// AppendTool appends the canonical form (docs/canon.md#canonical-form) of one MCP tool object to
// dst: RFC 8785 JCS throughout, plus, inside its inputSchema and outputSchema
// and every subschema reached through schema keywords, the arrays of
// required, type and enum sorted as sets. Instance data inside schemas
// (default, const, examples, enum members) and everything outside them
// (annotations, _meta, …) keep their array order.
func AppendTool(dst []byte, tool *Value) []byte {
	e := encoder{buf: dst}
	e.grow(tool.End - tool.Start)
	if tool.Kind == Object {
		e.object(tool, posTool, 0)
	} else {
		e.value(tool, posData, 0)
	}
	return e.buf
}

// AppendSchema appends the canonical form of a JSON Schema to dst, with the
// set keywords sorted as in AppendTool.
func AppendSchema(dst []byte, schema *Value) []byte {
	e := encoder{buf: dst}
	e.grow(schema.End - schema.Start)
	e.value(schema, posSchema, 0)
	return e.buf
}

// ToolName returns the "name" member of a tool object, or "" when it has none
// or it is not a string.
func ToolName(tool *Value) string {
	if n := tool.Get("name"); n != nil && n.Kind == String {
		return n.Str
	}
	return ""
}

// AppendToolList appends the canonical form of a tool set, {"tools":[…]},
// to dst: the tools sorted by name (by UTF-16 code units, stable for equal
// names) and each encoded by AppendTool. The input slice is not reordered.
func AppendToolList(dst []byte, tools []*Value) []byte {
	sorted := slices.Clone(tools)
	slices.SortStableFunc(sorted, func(a, b *Value) int { return compareUTF16(ToolName(a), ToolName(b)) })
	// One encoder for all tools, so its scratch space is reused; the source
	// size of the tools estimates the output size.
	e := encoder{buf: dst}
	size := 16
	for _, t := range tools {
		size += t.End - t.Start + 1
	}
	e.grow(size)
	e.buf = append(e.buf, `{"tools":[`...)
	for i, t := range sorted {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if t.Kind == Object {
			e.object(t, posTool, 0)
		} else {
			e.value(t, posData, 0)
		}
	}
	e.buf = append(e.buf, "]}"...)
	return e.buf
}

// Fingerprint returns the lower-case hex SHA-256 of canonical bytes, the
// fingerprint of docs/glossary.md#glossary.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
