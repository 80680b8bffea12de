package diff

// withDisabledRules returns opts with the findings of the named schema rules
// dropped, as if the rules were missing: fixtures use it to show that
// --verify catches what a missing rule would let through.
func withDisabledRules(opts Options, ids ...string) Options {
	if len(ids) == 0 {
		return opts
	}
	opts.disabledRules = make(map[string]bool, len(ids))
	for _, id := range ids {
		opts.disabledRules[id] = true
	}
	return opts
}
