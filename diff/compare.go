package diff

import (
	"slices"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/toolset"
)

// Compare classifies every change from old to new (DESIGN §4). It is pure
// and deterministic: the same inputs give a byte-identical JSON report.
func Compare(old, new *toolset.Set, opts Options) *Report {
	r := &Report{
		Old:     Side{Source: old.Source, Fingerprint: old.Fingerprint()},
		New:     Side{Source: new.Source, Fingerprint: new.Fingerprint()},
		Changes: []Change{},
	}
	for _, ot := range old.Tools {
		nt := new.Lookup(ot.Name)
		if nt == nil {
			continue // tool-level rules: removed, renamed, consolidated
		}
		r.Changes = append(r.Changes, compareTool(ot, nt, &opts)...)
	}
	finish(r)
	return r
}

// compareTool compares two versions of one tool.
func compareTool(ot, nt *toolset.Tool, opts *Options) []Change {
	ov, nv := normalized(ot), normalized(nt)
	var out []Change
	out = append(out, compareSchemas(schemaPair{Tool: ot.Name, Direction: Input, Old: ov.Get("inputSchema"), New: nv.Get("inputSchema"), Opts: opts})...)
	out = append(out, compareSchemas(schemaPair{Tool: ot.Name, Direction: Output, Old: ov.Get("outputSchema"), New: nv.Get("outputSchema"), Opts: opts})...)
	return out
}

// normalized returns a normalized deep copy of a tool's value.
func normalized(t *toolset.Tool) *canon.Value {
	v := t.Value.Clone()
	canon.NormalizeTool(&v)
	return &v
}

// finish sorts the changes deterministically and fills level and counts.
func finish(r *Report) {
	slices.SortStableFunc(r.Changes, func(a, b Change) int {
		if c := canon.CompareKeys(a.Tool, b.Tool); c != 0 {
			return c
		}
		if a.Level != b.Level {
			return int(b.Level) - int(a.Level)
		}
		if c := canon.CompareKeys(string(a.Direction), string(b.Direction)); c != 0 {
			return c
		}
		if c := canon.CompareKeys(a.Path, b.Path); c != 0 {
			return c
		}
		return canon.CompareKeys(a.Rule, b.Rule)
	})
	r.Counts = map[string]int{"safe": 0, "facade": 0, "breaking": 0}
	r.Level = LevelNone
	for _, c := range r.Changes {
		r.Counts[c.Level.String()]++
		if c.Level > r.Level {
			r.Level = c.Level
		}
	}
}
