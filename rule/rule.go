package rule

import (
	"cmp"
	"slices"
)

// ID is a rule's stable kebab-case id ("input-enum-value-removed",
// "name-invalid"): what findings carry and what .mcpctl.yaml level
// overrides and ignores name. Never renamed once released.
type ID string

// Kind is the family of checks a rule belongs to.
type Kind string

// The kinds.
const (
	// Diff rules judge a change between two tool sets (mcpctl diff);
	// their levels are safe, facade and breaking.
	Diff Kind = "diff"
	// Lint rules judge one tool set on its own (mcpctl lint); their
	// levels are error and warning.
	Lint Kind = "lint"
)

// Level is a rule's default level by name: "safe", "facade" or "breaking"
// for Diff rules, "error" or "warning" for Lint rules.
type Level string

// Direction says who reads what a Diff rule compares: "input" (the
// inputSchema, read by the server), "output" (the outputSchema, read by
// clients) or "tool" (the tool as a whole). Lint rules have none.
type Direction string

// Effect is how the change a Diff schema rule names moves the set of
// instances a schema accepts; it orients witnesses and decides which rule
// a change inside "not" becomes.
type Effect uint8

// The effects.
const (
	Annotates Effect = iota // no effect on validation (default, description); also every non-schema rule
	Narrows                 // some instances valid before are now rejected
	Widens                  // some instances rejected before are now valid
	Reshapes                // both, or not decided
)

// Rule is one entry of the rule catalog, declared once, in code, by the
// package that finds it (diff's rule_*.go files, lint's rules.go).
// Findings are emitted by Rule value, never by a string id.
type Rule struct {
	ID        ID        `json:"id"`
	Kind      Kind      `json:"kind"`
	Level     Level     `json:"level"`
	Direction Direction `json:"direction,omitempty"`
	// Effect is set for Diff schema rules; it is not part of the JSON
	// catalog.
	Effect Effect   `json:"-"`
	Tags   []string `json:"tags"`
	// Profile is the lint profile that enables the rule ("" = every
	// profile).
	Profile string `json:"profile,omitempty"`
	Purpose string `json:"purpose"`
}

// Sorted returns the rules of every list in one slice, by kind (diff
// before lint) and then by ID in byte order; the rules' Tags are copies.
func Sorted(lists ...[]Rule) []Rule {
	var all []Rule
	for _, l := range lists {
		for _, r := range l {
			r.Tags = slices.Clone(r.Tags)
			all = append(all, r)
		}
	}
	slices.SortStableFunc(all, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return all
}
