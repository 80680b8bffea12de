// Package config reads .mcpctl.yaml, the per-repository policy of mcpctl
// diff (docs/diff.md#configuration): per-rule level overrides, ignores and the
// open-content policy, which fill diff.Options; and of mcpctl lint: the
// lint: section's levels and ignores, which fill lint.Options (Lint.Apply).
//
// The file, found by Find upward from the working directory or named with
// --config:
//
//	rules:                       # level overrides by rule id
//	  description-changed: facade
//	ignore:                      # findings to ignore, each with a reason
//	  - rule: input-property-removed
//	    tool: list_issues
//	    path: /properties/sort   # JSON Pointer inside the schema; omit for any
//	    reason: never honoured by the server
//	    expires: 2027-01-31      # optional; ignoring stops on this date (00:00 UTC)
//	open-content: strict         # or lenient (the default)
//	lint:
//	  rules:                     # lint rule id: error, warning or off
//	    schema-draft: off
//	  ignore:                    # the keys of ignore above; tool may be *
//	    - {rule: name-dot-or-slash, tool: "*", reason: our clients keep dots}
//
// Unknown keys, unknown rule ids, unknown levels and bad dates are errors
// with the file, line and column.
package config
