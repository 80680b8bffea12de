// Package report renders a diff report (*diff.Report, docs/diff.md#output-and-exit-codes), a
// replay report (*fixtures.Report, docs/replay.md#replay-recorded-calls-against-a-new-contract: RenderReplay) and the rule
// catalog (docs/diff.md#levels-and-rules) for people and machines. It owns presentation
// only: what was found is decided by package diff.
//
// Diff report formats (Render, Formats):
//
//   - text: findings grouped by tool, the most severe tool first and, inside
//     a tool, breaking findings first; each with level, rule, direction,
//     JSON Pointer, message, old and new values, witness, the facade
//     suggestion as YAML in the facade-file shape {TOOL: BLOCK}, and notice.
//     Styled with lipgloss when Options.Color is set, plain text otherwise.
//   - json: the public contract of docs/diff.md#output-and-exit-codes (level, counts, old, new,
//     changes), indented, plus a "gate" object (gate level, --fail-on,
//     whether it fails).
//   - markdown: a pull-request comment: a summary table and the verdict, then
//     one <details> block per tool.
//   - github: GitHub Actions workflow commands (::error, ::warning,
//     ::notice), escaped as the Actions toolkit does.
//   - junit: JUnit XML, one <testcase> per tool and one <failure> per
//     finding at or above --fail-on.
//   - sarif: SARIF 2.1.0 (OASIS), one run whose driver lists the rule
//     catalog.
//
// With diff --usage, findings carry the number of recorded calls they
// affect, and breaking findings no call touches are marked unused in every
// format; Options.UsedOnly keeps those off the gate.
//
// The rule catalog renders as text (a table), json or markdown
// (RenderRules); the README's rule table is RulesMarkdown's output.
//
// The commands without a report format of their own render here too, their
// JSON contracts in docs/output.md: lint findings (LintJSON), fingerprints
// (FingerprintsText, FingerprintsJSON), a fleet's status (FleetText,
// FleetJSON) and one server's status (StatusText, of an admin.Status).
//
// Example:
//
//	rep := diff.Compare(old, new, diff.Options{})
//	err := report.Render(os.Stdout, "markdown", rep, report.Options{FailOn: diff.Breaking})
package report
