// Package diff compares two tool sets and classifies every change as safe,
// facade or breaking, with proof (docs/diff.md#diff-classify-changes-with-proof). It owns the schema comparison,
// the rule catalog, witnesses, facade suggestions and coverage, and the
// Report type whose JSON form is the public contract of docs/diff.md#output-and-exit-codes.
//
// Main types and functions:
//
//   - Compare(old, new, Options) *Report: pure and deterministic. Tools are
//     matched by name; removed tools are routed (tool-renamed,
//     tool-consolidated) when a verified facade can carry their calls.
//     Input schemas must keep accepting what they accepted (old ⊆ new),
//     output schemas must not produce what clients rejected (new ⊆ old).
//   - Change: one finding, with a rule id, level, direction, JSON Pointer
//     path (RFC 6901), old and new values, a witness validated with
//     jsonschema/v6 against both schemas, and a facade Suggestion. A
//     finding at facade level or above has a witness, or is Undecided, or
//     belongs to a rule that documents why validation cannot show it
//     (format from 2019-09 on, an argument the server may ignore).
//   - The engine's invariant: when the normalized schemas of a tool differ,
//     the report holds at least one finding for it (a rule's, else
//     *-other-keyword-changed, *-schema-rewritten, or *-composition-changed
//     with the witness that shows what no rule named). The root of a tool
//     schema ranges over JSON objects only (MCP 2025-11-25: arguments and
//     structuredContent are objects).
//   - Report.SuggestedFacades: every facade suggestion merged into one
//     facade file, one block per tool (mcpctl diff --suggest-facades).
//   - Rules(): the catalog, every rule declared once with its default
//     level, direction, tags and purpose (files rule_*.go by family).
//   - Options: open-content policy, level overrides, ignores with expiry,
//     declared facades (coverage), --verify sampling, the time of judgement.
//   - Report.GateLevel: the level a CI gate compares with --fail-on
//     (covered facade findings count as safe, ignored ones not at all).
//
// Example:
//
//	old, _ := source.Load(ctx, "git:origin/main:tools.lock.json", source.LoadOptions{})
//	new, _ := source.Load(ctx, "tools.lock.json", source.LoadOptions{})
//	r := diff.Compare(old, new, diff.Options{})
//	if r.GateLevel() >= diff.Breaking { /* fail the build */ }
package diff
