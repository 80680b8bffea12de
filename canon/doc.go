// Package canon owns mcpctl's canonical discovery JSON (docs/canon.md#canonical-form): a strict
// JSON parser, the RFC 8785 (JCS) encoding extended with schema-aware set
// sorting and tool-list ordering, fingerprints, and the syntactic
// normalizations of docs/diff.md#normalization.
//
// The canonical form exists only to decide whether two documents mean the
// same thing; it is never served to clients (serve keeps each tool's source
// bytes and member order).
//
// # Main types and functions
//
//   - Parse reads one JSON text (RFC 8259) into a Value, an ordered tree:
//     object members in source order, numbers as their source text, and the
//     byte range [Start, End) of every node. It refuses duplicate member
//     names, invalid UTF-8, lone surrogate escapes, trailing data, NaN and
//     other non-JSON tokens, a byte order mark, and nesting deeper than
//     MaxDepth, each with a *SyntaxError carrying the byte offset (wrapping
//     ErrSyntax).
//   - AppendJCS encodes any Value as RFC 8785: members sorted by UTF-16 code
//     units (CompareKeys), numbers as ECMAScript prints them (AppendNumber,
//     AppendFloat), strings minimally escaped (AppendString), no whitespace.
//   - AppendTool, AppendSchema and AppendToolList add docs/canon.md#schema-aware-set-sorting and docs/canon.md#tool-list-order:
//     inside a tool's inputSchema and outputSchema, and every subschema
//     reached through schema keywords, the arrays of required, type and enum
//     are sorted as sets (enum members by their canonical encoding); instance
//     data (default, const, examples, enum members, _meta, annotations) keeps
//     its array order; the tools of a list are sorted by name.
//   - Fingerprint is the lower-case hex SHA-256 of canonical bytes.
//   - NormalizeTool and NormalizeSchema rewrite a tool into one spelling of
//     semantically equal forms (default annotation hints dropped, const as a
//     one-element enum, one-element type arrays, definitions as $defs, empty
//     properties and required dropped); WalkSchemas visits every subschema
//     with its JSON Pointer.
//
// # Numbers
//
// Numbers follow RFC 8785 §3.2.2.3 (the shortest double that round-trips,
// ECMAScript layout) with two deliberate deviations where a double cannot
// hold the value. An integer literal (digits only) is kept exactly, at any
// magnitude: 9007199254740993 stays 9007199254740993 instead of being rounded
// to 2^53, so two large identifiers never compare equal; up to 2^53 this is
// what JCS prints anyway. A number beyond the double range (1e400) is kept
// exactly in normalized scientific form (1e+400). See AppendNumber.
//
// # Example
//
//	root, err := canon.Parse(data) // a {"tools":[…]} document
//	if err != nil {
//		return err // a *canon.SyntaxError with the byte offset
//	}
//	list := root.Get("tools")
//	tools := make([]*canon.Value, len(list.Items))
//	for i := range list.Items {
//		tools[i] = &list.Items[i]
//	}
//	out := canon.AppendToolList(nil, tools)
//	fmt.Println(canon.Fingerprint(out))
package canon
