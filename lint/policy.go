package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/toolset"
)

// LevelOff is the level of Options.Levels that turns a rule off.
const LevelOff = "off"

// Ignore suppresses the findings of one rule for one tool ("*": every tool)
// at or below Path (a JSON Pointer into the tool; "" is the whole tool),
// until Expires (00:00 UTC of its date; zero never expires). Reason says why
// and is required in .mcpctl.yaml.
type Ignore struct {
	Rule    string
	Tool    string
	Path    string
	Reason  string
	Expires time.Time
}

// matches reports whether ig applies to f at now.
func (ig Ignore) matches(f Finding, now time.Time) bool {
	if ig.Rule != f.Rule || (ig.Tool != "*" && ig.Tool != f.Tool) {
		return false
	}
	if !ig.Expires.IsZero() && !now.Before(ig.Expires) {
		return false
	}
	return ig.Path == "" || f.Pointer == ig.Path || strings.HasPrefix(f.Pointer, ig.Path+"/")
}

// ValidateLevel returns an error unless level is "error", "warning" or
// LevelOff.
func ValidateLevel(level string) error {
	switch Severity(level) {
	case SeverityError, SeverityWarning, LevelOff:
		return nil
	}
	return fmt.Errorf("unknown lint level %q (want error, warning or off)", level)
}

// applyPolicy sets each finding's severity from opts.Levels, drops the
// findings of rules turned off, and marks those an ignore matches.
func applyPolicy(fs []Finding, opts Options) []Finding {
	if len(opts.Levels) == 0 && len(opts.Ignores) == 0 {
		return fs
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	out := fs[:0]
	for _, f := range fs {
		if l, ok := opts.Levels[f.Rule]; ok {
			if l == LevelOff {
				continue
			}
			f.Severity = Severity(l)
		}
		for _, ig := range opts.Ignores {
			if ig.matches(f, now) {
				f.Ignored, f.IgnoreReason = true, ig.Reason
				break
			}
		}
		out = append(out, f)
	}
	return out
}

// locate fills File, Line and Col of findings whose tool knows where its
// values were written.
func locate(set *toolset.Set, fs []Finding) {
	for i := range fs {
		if t := set.Lookup(fs[i].Tool); t != nil {
			locateIn(t, fs[i:i+1])
		}
	}
}

// locateIn fills File, Line and Col of t's findings when t knows where its
// values were written.
func locateIn(t *toolset.Tool, fs []Finding) {
	if t.Locate == nil {
		return
	}
	for i := range fs {
		p := t.Locate(fs[i].Pointer)
		fs[i].File, fs[i].Line, fs[i].Col = p.File, p.Line, p.Col
	}
}
