// Package lint checks tool sets for MCP validity and client compatibility
// (docs/lint.md#lint-validity-and-client-compatibility).
//
// Errors (SeverityError) are what the MCP specification (2025-11-25, Tool)
// requires of a tool: a name of 1 to 128 characters of A-Z a-z 0-9 _ - .,
// unique in the set; an inputSchema that is present, not null, and an
// object schema ("type": "object"); an outputSchema, if present, that is an
// object schema; schemas that compile (schema.Compile: jsonschema v6, draft
// from $schema, 2020-12 when absent); local $refs that resolve ("#",
// "#/json/pointer" per RFC 6901, "#anchor"), and no $ref to another document,
// since mcpctl never fetches one. ValidateTool checks one tool; diff uses it
// for its tool-invalid rule and serve to refuse a candidate.
//
// Warnings (SeverityWarning) are what MCP allows but model APIs and clients
// reject: names over 64 characters or containing "." or "/", names equal
// ignoring case (MCP names are case-sensitive, but clients that fold case
// confuse them), names that collide once sanitized to A-Z a-z 0-9 _ -, a root anyOf/oneOf/allOf in an
// inputSchema, a $schema other than 2020-12, and under the strict profile
// object schemas in an inputSchema without "additionalProperties": false.
// Check runs everything on a set.
//
// Every Finding names its rule (a stable kebab-case id listed by Rules), the
// tool, and an RFC 6901 JSON Pointer inside the tool object, and says what is
// wrong and what is expected; File, Line and Col say where it was written
// when the tool came from a file (Tool.Locate). Options.Levels and
// Options.Ignores (the lint: section of .mcpctl.yaml) change a rule's
// severity, turn it off, or mark findings Ignored.
//
//	findings := lint.Check(set, lint.Options{Profile: lint.ProfileStrict})
//	if lint.HasErrors(findings) { /* exit 1 */ }
package lint
