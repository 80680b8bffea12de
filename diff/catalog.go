package diff

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/rule"
)

// Tags are the rule families of docs/diff.md#levels-and-rules. Every rule carries at least
// one of them.
var Tags = []string{
	"existence", "requiredness", "type", "constraint", "values",
	"structure", "annotation", "lifecycle", "security", "documentation",
}

// Rules returns the rule catalog (docs/diff.md#levels-and-rules): every rule diff can report,
// each declared once in the rule file of its family (rule_tool.go,
// rule_annotation.go, rule_lifecycle.go, rule_facade.go, and the schema rule
// files), sorted
// by ID. The slice and its Tags are copies; callers may modify them.
func Rules() []Rule {
	all := slices.Clone(catalog().list)
	for i := range all {
		all[i].Tags = slices.Clone(all[i].Tags)
	}
	return all
}

// RuleByID returns the catalog entry of a rule ID.
func RuleByID(id string) (Rule, bool) {
	r, ok := catalog().byID[id]
	if ok {
		r.Tags = slices.Clone(r.Tags)
	}
	return r, ok
}

type ruleCatalog struct {
	list []Rule
	byID map[string]Rule
}

var catalog = sync.OnceValue(func() ruleCatalog {
	var all []Rule
	all = append(all, toolRules...)
	all = append(all, annotationRules...)
	all = append(all, lifecycleRules...)
	all = append(all, facadeRules...)
	all = append(all, schemaRules()...)
	slices.SortStableFunc(all, func(a, b Rule) int { return canon.CompareKeys(string(a.ID), string(b.ID)) })
	byID := make(map[string]Rule, len(all))
	for _, r := range all {
		byID[string(r.ID)] = r
	}
	return ruleCatalog{list: all, byID: byID}
})

// diffRule declares one diff rule of the catalog.
func diffRule(id rule.ID, lvl Level, d Direction, tags []string, purpose string) Rule {
	return Rule{ID: id, Kind: rule.Diff, Level: rule.Level(lvl.String()), Direction: d, Tags: tags, Purpose: purpose}
}

// levelOf returns the Level a catalog entry names; every entry is declared
// with a Level (diffRule), so its name parses.
func levelOf(r Rule) Level {
	l, _ := ParseLevel(string(r.Level))
	return l
}

// newChange starts a finding of rule r with the rule's default level and
// direction. Rules are passed by value (the rule_*.go declarations), so a
// finding of an undeclared rule does not compile.
func newChange(r Rule, tool, path string) Change {
	return Change{Rule: string(r.ID), Level: levelOf(r), Direction: r.Direction, Tool: tool, Path: path}
}

// jcs returns the RFC 8785 encoding of v, or nil (JSON null in a report)
// when v is nil.
func jcs(v *canon.Value) json.RawMessage {
	if v == nil {
		return nil
	}
	return canon.AppendJCS(nil, v)
}

// jsonString returns the JSON encoding of s.
func jsonString(s string) json.RawMessage { return canon.AppendString(nil, s) }

// sameValue reports whether a and b have one canonical encoding (nil only
// equals nil).
func sameValue(a, b *canon.Value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return string(canon.AppendJCS(nil, a)) == string(canon.AppendJCS(nil, b))
}

// addNotice appends a line to a finding's notice.
func addNotice(c *Change, s string) {
	if c.Notice == nil {
		c.Notice = &s
		return
	}
	joined := *c.Notice + "\n" + s
	c.Notice = &joined
}
