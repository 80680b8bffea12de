package diff

import (
	"fmt"
	"time"

	"github.com/mcpctl/mcpctl/canon"
)

// deprecatedKey is the _meta member that declares a tool's lifecycle
// (docs/diff.md#levels-and-rules): {"since": …, "sunset": RFC 3339 date or date-time,
// "replacement": tool name}. A tool may be removed at or after its sunset
// without breaking anyone who read the notice.
const deprecatedKey = "io.mcpctl/deprecated"

// lifecycleRules follow a tool's deprecation and sunset.
var (
	ruleToolRemovedAfterSunset = diffRule("tool-removed-after-sunset", Safe, ToolD, []string{"existence", "lifecycle"},
		"A tool was removed at or after the sunset its _meta[\"io.mcpctl/deprecated\"] announced, as promised.")
	ruleToolDeprecated = diffRule("tool-deprecated", Safe, ToolD, []string{"lifecycle"},
		"A tool is newly marked deprecated in _meta[\"io.mcpctl/deprecated\"], a notice that callers should migrate before its sunset.")
	ruleToolUndeprecated = diffRule("tool-undeprecated", Safe, ToolD, []string{"lifecycle"},
		"A tool's deprecation was withdrawn, so it stays available.")
	ruleSunsetMovedEarlier = diffRule("sunset-moved-earlier", Breaking, ToolD, []string{"lifecycle"},
		"A deprecated tool's sunset moved earlier, breaking the promise callers planned their migration on.")
	ruleSunsetRemoved = diffRule("sunset-removed", Breaking, ToolD, []string{"lifecycle"},
		"A deprecated tool lost its sunset date (removed or no longer an RFC 3339 date), so callers no longer know how long it stays.")
	ruleSunsetMovedLater = diffRule("sunset-moved-later", Safe, ToolD, []string{"lifecycle"},
		"A deprecated tool's sunset moved later or was set for the first time, giving callers at least as much time.")
	ruleDeprecationChanged = diffRule("deprecation-changed", Safe, ToolD, []string{"lifecycle", "documentation"},
		"A deprecation's since, replacement or other details changed, without touching the sunset.")
)

// lifecycleRules lists them for the catalog.
var lifecycleRules = []Rule{
	ruleToolRemovedAfterSunset, ruleToolDeprecated, ruleToolUndeprecated, ruleSunsetMovedEarlier, ruleSunsetRemoved, ruleSunsetMovedLater, ruleDeprecationChanged,
}

// deprecation is a tool's parsed lifecycle declaration.
type deprecation struct {
	Value       *canon.Value // the _meta member; nil when not deprecated
	Sunset      time.Time    // zero when absent or unreadable
	SunsetText  string       // as written ("" when absent)
	Replacement string
}

func (d deprecation) declared() bool  { return d.Value != nil }
func (d deprecation) hasSunset() bool { return !d.Sunset.IsZero() }

// readDeprecation reads _meta["io.mcpctl/deprecated"] of a tool value.
func readDeprecation(tool *canon.Value) deprecation {
	v := tool.Get("_meta").Get(deprecatedKey)
	if v == nil || (v.Kind == canon.Bool && !v.Bool) || v.Kind == canon.Null {
		return deprecation{}
	}
	d := deprecation{Value: v}
	if s := v.Get("sunset"); s != nil && s.Kind == canon.String {
		d.SunsetText = s.Str
		d.Sunset = parseSunset(s.Str)
	}
	if r := v.Get("replacement"); r != nil && r.Kind == canon.String {
		d.Replacement = r.Str
	}
	return d
}

// Lifecycle reads a tool's deprecation, _meta["io.mcpctl/deprecated"]:
// whether one is declared, and its sunset (the zero time when absent or
// not an RFC 3339 full-date or date-time) and since (as written).
func Lifecycle(tool *canon.Value) (declared bool, sunset time.Time, since string) {
	d := readDeprecation(tool)
	if !d.declared() {
		return false, time.Time{}, ""
	}
	if v := d.Value.Get("since"); v != nil && v.Kind == canon.String {
		since = v.Str
	}
	return true, d.Sunset, since
}

// parseSunset reads an RFC 3339 full-date ("2027-01-31", meaning its first
// instant in UTC) or date-time; the zero time when it is neither.
func parseSunset(s string) time.Time {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	return time.Time{}
}

// lifecycleChanges compares the deprecation of two versions of a tool.
func lifecycleChanges(name string, ov, nv *canon.Value) []Change {
	od, nd := readDeprecation(ov), readDeprecation(nv)
	ptr := "/_meta/" + canon.EscapePointer(deprecatedKey)
	var out []Change
	add := func(r Rule, path, msg string) *Change {
		c := newChange(r, name, path)
		c.Old, c.New = jcs(od.Value), jcs(nd.Value)
		c.Message = msg
		out = append(out, c)
		return &out[len(out)-1]
	}
	switch {
	case !od.declared() && !nd.declared():
		return nil
	case !od.declared():
		c := add(ruleToolDeprecated, ptr, "tool marked deprecated"+nd.summary())
		addNotice(c, fmt.Sprintf("deprecation: %s is deprecated%s; callers should migrate", name, nd.summary()))
		if nd.SunsetText != "" && !nd.hasSunset() {
			addNotice(c, fmt.Sprintf("sunset %q is not an RFC 3339 date: removing the tool will be reported as breaking", nd.SunsetText))
		}
		return out
	case !nd.declared():
		add(ruleToolUndeprecated, ptr, "deprecation withdrawn")
		return out
	}
	sp := ptr + "/sunset"
	switch {
	case od.hasSunset() && !nd.hasSunset():
		msg := "sunset " + od.SunsetText + " removed"
		if nd.SunsetText != "" {
			msg = fmt.Sprintf("sunset %s replaced by %q, which is not an RFC 3339 date", od.SunsetText, nd.SunsetText)
		}
		add(ruleSunsetRemoved, sp, msg)
	case od.hasSunset() && nd.Sunset.Before(od.Sunset):
		add(ruleSunsetMovedEarlier, sp, fmt.Sprintf("sunset moved earlier: %s -> %s", od.SunsetText, nd.SunsetText))
	case !od.hasSunset() && nd.hasSunset(), od.hasSunset() && nd.Sunset.After(od.Sunset):
		from := od.SunsetText
		if from == "" {
			from = "none"
		}
		add(ruleSunsetMovedLater, sp, fmt.Sprintf("sunset %s -> %s", from, nd.SunsetText))
	}
	if o, n := withoutMember(od.Value, "sunset"), withoutMember(nd.Value, "sunset"); !sameValue(o, n) {
		c := add(ruleDeprecationChanged, ptr, "deprecation details changed"+nd.summary())
		c.Old, c.New = jcs(o), jcs(n)
	}
	return out
}

// summary renders the sunset and replacement for messages.
func (d deprecation) summary() string {
	s := ""
	if d.SunsetText != "" {
		s += ", sunset " + d.SunsetText
	}
	if d.Replacement != "" {
		s += ", replacement " + d.Replacement
	}
	return s
}

// removalVerdict decides how a tool removal counts, given the old tool's
// deprecation and the time: past (or at) a readable sunset it is safe;
// otherwise it stays breaking and note says what the lifecycle lacked.
func removalVerdict(old *canon.Value, now time.Time) (afterSunset bool, note string) {
	d := readDeprecation(old)
	switch {
	case d.hasSunset() && !now.Before(d.Sunset):
		return true, fmt.Sprintf("removed at or after its sunset %s", d.SunsetText)
	case d.hasSunset():
		return false, fmt.Sprintf("deprecated, but its sunset %s has not come (now %s)", d.SunsetText, now.UTC().Format(time.DateOnly))
	case d.declared() && d.SunsetText != "":
		return false, fmt.Sprintf("deprecated, but its sunset %q is not an RFC 3339 date", d.SunsetText)
	case d.declared():
		return false, "deprecated without a sunset date"
	case deprecationSentence(old.Get("description")) != "":
		return false, "its description said it was deprecated, but no sunset was declared in _meta[\"" + deprecatedKey + "\"]"
	}
	return false, ""
}
