package diff

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/mcpctl/mcpctl/canon"
)

// This file is --verify (docs/diff.md#witnesses-and-verification): when the rules report no breaking
// change for a schema pair, instances of the old input schema (new output
// schema) are sampled and checked against the other side, so a verdict of
// safe is tested, not assumed. A counterexample is a bug in a rule and is
// reported as one.

var verifyRules = []schemaRuleDef{
	schemaRule("verify-counterexample", Breaking, reshapes, schemaTagsStructure,
		"--verify sampled an instance the old input schema accepts and the new one rejects (for output: new accepts, old rejects) although no rule reported a breaking change: a bug in a rule, reported with the instance as witness (input or output direction)."),
}

// DefaultVerify is the number of instances mcpctl diff and serve's gate
// sample per changed schema unless told otherwise (--verify): a verdict of
// safe is tested by default, at a cost that keeps a real release's diff
// within three times the time of loading and canonicalizing both sides
// (BenchmarkDiff).
const DefaultVerify = 8

// verifySeed derives the sampler's seed from the tool and direction, so a
// run is deterministic.
func verifySeed(tool string, d Direction) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write([]byte(d))
	return h.Sum64()
}

// verify samples p.Opts.Verify instances of the source side and reports
// the first one the target side rejects, unless a breaking or facade
// finding already explains the pair.
func (c *schemaComparison) verify() {
	for _, f := range c.found {
		if f.def != nil && f.Level >= Facade {
			return // old calls fail already, and a finding says so
		}
	}
	src, dst := c.old, c.new
	if c.p.Direction == Output {
		src, dst = c.new, c.old
	}
	if src.orig == nil || dst.orig == nil {
		return
	}
	// The source side is compiled only for an instance the target side
	// rejects (a candidate counterexample): samples are drawn from it, so
	// the common case needs the target alone.
	if _, err := dst.compiledSchema(); err != nil {
		return
	}
	seed := verifySeed(c.p.Tool, c.p.Direction)
	g := &instanceGen{sd: src, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	cands := append([]canon.Value{}, src.bases()...)
	for i := 0; i < c.p.Opts.Verify; i++ {
		if i < len(cands) {
			// the deterministic bases first
		} else {
			cands = append(cands, g.value(src.root))
		}
		v := &cands[i]
		if v.Kind != canon.Object || dst.accepts(v) || !src.accepts(v) {
			continue
		}
		d := &verifyRules[0]
		what := "the old input schema accepts and the new one rejects"
		if c.p.Direction == Output {
			what = "the new output schema accepts and the old one rejects"
		}
		f := &finding{def: d, at: rootLoc(c.old.root, c.new.root)}
		f.Change = Change{
			Rule: string(d.ID), Level: Breaking, Direction: c.p.Direction, Tool: c.p.Tool, Path: "",
			Old: schemaJSON(c.old.orig), New: schemaJSON(c.new.orig),
			Message: fmt.Sprintf("--verify found an instance %s although no rule reported a breaking change: this is a bug in a rule, please report it", what),
			Witness: json.RawMessage(canon.AppendJCS(nil, v)),
			RuleBug: true,
		}
		c.found = append(c.found, f)
		return
	}
}
