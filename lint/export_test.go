package lint

// ruleSeverity returns the default severity of the rule with id, "" when
// no rule has it.
func ruleSeverity(id string) Severity {
	for _, r := range rules {
		if string(r.ID) == id {
			return Severity(r.Level)
		}
	}
	return ""
}
