package diff

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// now is the time lifecycle sunsets and ignore expiries are judged against.
func (o Options) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

// Check reports Options that name what does not exist: a Levels or Ignores
// entry whose rule ID is not in the catalog, a level outside safe, facade,
// breaking, an ignore that names neither a rule nor a tool, an ignore path
// that is not a JSON Pointer. Compare itself never fails; callers (the CLI,
// serve) run Check on configuration first and report its error as a usage
// error. All problems are joined into one error.
func (o Options) Check() error {
	var errs []error
	for _, id := range sortedKeys(o.Levels) {
		if _, ok := RuleByID(id); !ok {
			errs = append(errs, fmt.Errorf("levels: unknown rule %q (see mcpctl rules)", id))
		}
		if l := o.Levels[id]; l < Safe || l > Breaking {
			errs = append(errs, fmt.Errorf("levels: rule %q: level %s is not safe, facade or breaking", id, l))
		}
	}
	for i, ig := range o.Ignores {
		switch {
		case ig.Rule == "" && ig.Tool == "":
			errs = append(errs, fmt.Errorf("ignores[%d]: names neither a rule nor a tool", i))
		case ig.Rule != "":
			if _, ok := RuleByID(ig.Rule); !ok {
				errs = append(errs, fmt.Errorf("ignores[%d]: unknown rule %q (see mcpctl rules)", i, ig.Rule))
			}
		}
		if ig.Path != "" && !strings.HasPrefix(ig.Path, "/") {
			errs = append(errs, fmt.Errorf("ignores[%d]: path %q is not a JSON Pointer (it must start with /)", i, ig.Path))
		}
	}
	if _, err := ParseCompatibility(string(o.Compatibility)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// applyLevels replaces the level of every finding whose rule Options.Levels
// overrides.
func applyLevels(changes []Change, levels map[string]Level) {
	if len(levels) == 0 {
		return
	}
	for i := range changes {
		if l, ok := levels[changes[i].Rule]; ok {
			changes[i].Level = l
		}
	}
}

// Matches reports whether an ignore applies to a finding: Rule and Tool
// equal (or empty: any), and Path empty (any), equal to the finding's path
// or a parent of it ("/properties/a" covers "/properties/a/enum"). Expires
// is not looked at. serve's gate.allow entries match findings the same way.
func (ig Ignore) Matches(c Change) bool {
	if ig.Rule != "" && ig.Rule != c.Rule {
		return false
	}
	if ig.Tool != "" && ig.Tool != c.Tool {
		return false
	}
	return ig.Path == "" || c.Path == ig.Path || strings.HasPrefix(c.Path, ig.Path+"/")
}

// expired reports whether the ignore no longer applies at now: it is active
// while now is before Expires.
func (ig Ignore) expired(now time.Time) bool {
	return !ig.Expires.IsZero() && !now.Before(ig.Expires)
}

// ParseExpiry reads an expiry as .mcpctl.yaml ignores and serve's gate.allow
// entries write it under "expires": a date (2027-01-31: no longer applies
// from 00:00 UTC that day) or an RFC 3339 time. It returns the first instant
// no longer covered. through reads the deprecated "until" instead, which
// covers through the end of a date: 2027-01-31 then yields 2027-02-01.
func ParseExpiry(s string, through bool) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if through {
			d = d.AddDate(0, 0, 1)
		}
		return d, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("want a date (2027-01-31) or an RFC 3339 time, got %q", s)
	}
	return t, nil
}

// ExpiryText renders an expiry as a date when it is midnight UTC, else as
// RFC 3339.
func ExpiryText(t time.Time) string {
	if u := t.UTC(); u.Hour() == 0 && u.Minute() == 0 && u.Second() == 0 && u.Nanosecond() == 0 {
		return u.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// applyIgnores marks findings matched by an active ignore (the first one, in
// declaration order, gives the reason). A finding matched only by expired
// ignores is not ignored and says, in its notice, that each expired.
func applyIgnores(changes []Change, ignores []Ignore, now time.Time) {
	if len(ignores) == 0 {
		return
	}
	for i := range changes {
		c := &changes[i]
		var expired []Ignore
		for _, ig := range ignores {
			if !ig.Matches(*c) {
				continue
			}
			if ig.expired(now) {
				expired = append(expired, ig)
				continue
			}
			c.Ignored = true
			c.IgnoreReason = ig.Reason
			break
		}
		if c.Ignored {
			continue
		}
		for _, ig := range expired {
			msg := "ignore expired on " + ExpiryText(ig.Expires)
			if ig.Reason != "" {
				msg += " (it said: " + ig.Reason + ")"
			}
			addNotice(c, msg+"; this finding counts again")
		}
	}
}

// GateLevel is the level a gate (--fail-on, serve's publisher) compares
// against: the highest level among findings that are not ignored, a facade
// finding covered by a declared facade counting as safe. LevelNone when no
// finding counts. Report.Level, by contrast, is the highest level of all
// findings.
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
