package diff

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/rule"
)

// Level orders findings: LevelNone < Safe < Facade < Breaking (docs/glossary.md#glossary).
type Level int

// The levels. LevelNone is the level of a report with no finding.
const (
	LevelNone Level = iota
	Safe
	Facade
	Breaking
)

var levelNames = [...]string{"none", "safe", "facade", "breaking"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// ParseLevel parses "none", "safe", "facade" or "breaking".
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown level %q (want safe, facade or breaking)", s)
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Direction says who reads what changed (docs/diff.md#direction).
type Direction = rule.Direction

// The directions.
const (
	Input  Direction = "input"  // inputSchema, read by the server
	Output Direction = "output" // outputSchema, read by clients
	ToolD  Direction = "tool"   // name, description, annotations, _meta, …
)

// Side identifies one side of a comparison in a report.
type Side struct {
	Source      string `json:"source"`
	Fingerprint string `json:"fingerprint"`
}

// Suggestion is a facade that would carry old calls across a facade-level
// change: Block belongs in the facade of tool Tool (docs/serve.md#config facade-file
// shape: {Tool: Block}).
type Suggestion struct {
	Tool  string       `json:"tool"`
	Block facade.Block `json:"block"`
}

// Change is one finding (docs/glossary.md#glossary, docs/diff.md#output-and-exit-codes). Old, New and Witness hold JSON
// (canonical encoding, or null).
type Change struct {
	Rule      string          `json:"rule"`
	Level     Level           `json:"level"`
	Direction Direction       `json:"direction"`
	Tool      string          `json:"tool"`
	Path      string          `json:"path"`
	Old       json.RawMessage `json:"old"`
	New       json.RawMessage `json:"new"`
	Message   string          `json:"message"`
	Witness   json.RawMessage `json:"witness"`
	Facade    *Suggestion     `json:"facade"`
	Notice    *string         `json:"notice"`

	// NoWitness says why a breaking or facade finding carries no witness.
	NoWitness string `json:"noWitness,omitempty"`
	// Undecided marks a finding the engine could not decide; it is
	// reported at level breaking with Reason.
	Undecided bool   `json:"undecided,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// Covered: a declared facade turns the witness into accepted arguments.
	Covered bool `json:"covered,omitempty"`
	// Ignored by a .mcpctl.yaml ignore entry (with its reason).
	Ignored      bool   `json:"ignored,omitempty"`
	IgnoreReason string `json:"ignoreReason,omitempty"`
	// RuleBug: --verify found a counterexample to this rule's verdict.
	RuleBug bool `json:"ruleBug,omitempty"`
	// Calls is the number of recorded calls the finding affects (diff
	// --usage, docs/diff.md#facade-coverage-and-usage); nil when usage was not measured.
	Calls *int `json:"calls,omitempty"`
	// Unused marks a breaking finding that no recorded call touches.
	Unused bool `json:"unused,omitempty"`
	// Compatibility is the direction this finding fails in, "backward"
	// (OLD → NEW) or "forward" (NEW → OLD), under Options.Compatibility
	// forward or full (docs/diff.md#compatibility-modes); empty otherwise.
	Compatibility Compatibility `json:"compatibility,omitempty"`
}

// Report is the result of Compare; its JSON form is the public contract of
// docs/diff.md#output-and-exit-codes.
type Report struct {
	Level   Level          `json:"level"`
	Counts  map[string]int `json:"counts"`
	Old     Side           `json:"old"`
	New     Side           `json:"new"`
	Changes []Change       `json:"changes"`
}

// Rule is one entry of the rule catalog (docs/diff.md#levels-and-rules),
// in the one rule model diff and lint share: a stable kebab-case ID (never
// renamed once released), kind rule.Diff, its default level (a Level's
// name), direction, effect, tags and a one-sentence purpose.
type Rule = rule.Rule

// Ignore suppresses findings matching Rule, Tool and Path (JSON Pointer; ""
// matches any) until Expires (zero: never). An expired ignore stops
// ignoring and the report says so (docs/diff.md#configuration).
type Ignore struct {
	Rule    string    `json:"rule" yaml:"rule"`
	Tool    string    `json:"tool" yaml:"tool"`
	Path    string    `json:"path,omitempty" yaml:"path,omitempty"`
	Reason  string    `json:"reason" yaml:"reason"`
	Expires time.Time `json:"expires,omitzero" yaml:"expires,omitempty"`
}

// Options tunes Compare. The zero value is the default policy.
type Options struct {
	// StrictOpenContent makes an optional property added to an open input
	// schema breaking instead of safe (docs/diff.md#levels-and-rules open content).
	StrictOpenContent bool
	// Levels overrides the default level of rules, by rule ID.
	Levels map[string]Level
	// Ignores suppress matching findings (they stay in the report, marked).
	Ignores []Ignore
	// Facades, when set, mark facade findings covered (docs/diff.md#facade-coverage-and-usage).
	// Set (even empty), they are NEW's facades: the rules of OldFacades
	// they drop are findings (facade-…-removed); nil, they are unknown.
	Facades facade.File
	// Verify samples this many instances per changed schema to test safe
	// verdicts (docs/diff.md#witnesses-and-verification; a counterexample is
	// reported as verify-counterexample); 0 disables. mcpctl diff and serve's
	// gate use DefaultVerify unless told otherwise.
	Verify int
	// Now is the time lifecycle sunsets and ignore expiries are judged
	// against; zero means time.Now().
	Now time.Time
	// Compatibility is the direction changes are judged in: backward (the
	// default, ""), forward, full or none (docs/diff.md#compatibility-modes).
	Compatibility Compatibility
	// OldFacades are the facades OLD declares; they carry calls built from
	// NEW to OLD in the forward direction, as Facades do the other way, and
	// those Facades drop are findings.
	OldFacades facade.File
	// Usage, when set, judges facade-rule removals and tools removed after
	// their sunset by usage within QuietPeriod (default
	// DefaultQuietPeriod): safe with a notice only when unused
	// (sunset_usage.go).
	Usage       UsageFunc
	QuietPeriod time.Duration
}
