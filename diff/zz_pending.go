package diff

// TEMPORARY (branch report): stand-ins for the engine's catalog and gate
// level until the engine lands on main. Delete this file when merging.

// Rules returns the rule catalog (stand-in: empty).
func Rules() []Rule { return nil }

// GateLevel is the level --fail-on is compared against: the highest level of
// the changes, counting covered facade findings as safe and skipping ignored
// ones.
func (r *Report) GateLevel() Level {
	l := LevelNone
	for _, c := range r.Changes {
		if c.Ignored {
			continue
		}
		cl := c.Level
		if cl == Facade && c.Covered {
			cl = Safe
		}
		l = max(l, cl)
	}
	return l
}
