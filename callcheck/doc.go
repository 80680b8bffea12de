// Package callcheck validates tool-call arguments against a tool's input
// schema and, when they are invalid, builds the actionable message a model
// can repair its call from (docs/replay.md#replay-recorded-calls-against-a-new-contract "rejected", docs/serve.md#active-conversations-pinning "self-healing
// errors"): each offending field by JSON Pointer (RFC 6901), what the schema
// expected there, and a valid example built from the schema itself by the
// generator diff uses for witnesses (internal/instance: defaults, examples,
// enum members, then minimal values that honour bounds, patterns, formats
// and unique items) and checked with the validator. replay prints this message for a rejected call; serve returns
// it as the text of an isError result. Problems and Lines serve other
// instances too (serve's handler output against its outputSchema), and
// CloseNames suggests names for an unknown tool.
//
//	ok, msg := callcheck.Check(compiled, tool.InputSchema(), args)
//	if !ok {
//		// msg:
//		// invalid arguments:
//		// - /q: unexpected property (allowed: query)
//		// - /query: missing required property; expected a string
//		// example of valid arguments: {"query":"x"}
//	}
package callcheck
