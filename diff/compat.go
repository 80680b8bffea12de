package diff

import (
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/toolset"
)

// Compatibility is the direction a change must be compatible in
// (docs/diff.md#compatibility-modes; the vocabulary of schema registries):
//
//   - Backward (the default, "" too): calls made against OLD are accepted by
//     NEW and results of NEW are valid for OLD's clients — the comparison
//     OLD → NEW.
//   - Forward: the reverse — calls built from NEW are accepted by OLD and
//     results of OLD are valid for NEW's clients, what a rolling update
//     across replicas needs — the comparison NEW → OLD.
//   - Full: both; a change breaking in either direction is breaking.
//   - None: the backward findings are reported but never gate: each is
//     marked Ignored (with IgnoreReason), so Report.GateLevel is LevelNone.
type Compatibility string

// The compatibility modes.
const (
	Backward        Compatibility = "backward"
	Forward         Compatibility = "forward"
	Full            Compatibility = "full"
	NoCompatibility Compatibility = "none"
)

// Compatibilities lists the modes' names, for flags and messages.
func Compatibilities() []string { return []string{"backward", "forward", "full", "none"} }

// ParseCompatibility parses a mode's name; "" is Backward.
func ParseCompatibility(s string) (Compatibility, error) {
	if s == "" {
		return Backward, nil
	}
	for _, m := range Compatibilities() {
		if m == s {
			return Compatibility(s), nil
		}
	}
	return "", fmt.Errorf("unknown compatibility %q (want %s)", s, strings.Join(Compatibilities(), ", "))
}

// noneReason is the IgnoreReason of findings under compatibility none.
const noneReason = "compatibility none: reported, never gated"

// compareCompat runs Compare in the directions opts.Compatibility asks
// for. Forward findings come from the comparison NEW → OLD with
// opts.OldFacades as the declared facades (OLD's facades carry calls built
// from NEW); their rule, values, message and witness read in that
// direction (the witness is arguments NEW accepts and OLD rejects). Every
// finding of a forward or full report says its direction in
// Change.Compatibility; the report's sides stay OLD and NEW. A mode
// Options.Check would refuse is judged as full, the strictest.
func compareCompat(old, new *toolset.Set, opts Options) *Report {
	mode := opts.Compatibility
	opts.Compatibility = Backward
	switch mode {
	case NoCompatibility:
		r := Compare(old, new, opts)
		for i := range r.Changes {
			if c := &r.Changes[i]; !c.Ignored {
				c.Ignored, c.IgnoreReason = true, noneReason
			}
		}
		return r
	case Forward:
		r := forward(old, new, opts)
		finish(r)
		return r
	}
	r := Compare(old, new, opts)
	mark(r.Changes, Backward)
	r.Changes = append(r.Changes, forward(old, new, opts).Changes...)
	finish(r)
	return r
}

// forward compares NEW → OLD and reports it with the sides OLD and NEW.
func forward(old, new *toolset.Set, opts Options) *Report {
	// Facade rules carry old calls forward in time only: their removal
	// (rule_facade.go) is a backward finding, judged by usage
	// (sunset_usage.go) only backward.
	// Usage counts calls made against OLD: it says nothing of NEW → OLD.
	opts.Facades, opts.OldFacades, opts.Usage = opts.OldFacades, nil, nil
	r := Compare(new, old, opts)
	r.Old, r.New = r.New, r.Old
	mark(r.Changes, Forward)
	return r
}

func mark(cs []Change, m Compatibility) {
	for i := range cs {
		cs[i].Compatibility = m
	}
}
