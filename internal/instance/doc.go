// Package instance is mcpctl's one instance generator: it builds JSON
// instances of a JSON Schema (2020-12, and the drafts the validator reads)
// for diff's witnesses and --verify, for rename fitting, and for the
// valid example of serve's and replay's self-healing message.
//
// Gen builds a minimal instance (required properties only; default,
// examples, const and enum members preferred; the least values bounds,
// multipleOf, patterns, formats and uniqueItems allow, big numbers exact),
// a rich one (every declared property), boundary variants, and seeded
// random instances. Its results are candidates: callers check them with
// the validator, as Examples does. Admits, the type sets (Types) and
// Merge are the local reasoning the generator is built on, shared with
// diff's rules.
//
//	c, _ := schema.Compile(s)
//	ex := instance.Examples(c, s, nil, 1) // [] when s accepts nothing
package instance
