package diff

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestRemovalLifecycle: removing a deprecated tool is safe at or after its
// sunset and breaking before it, or when the sunset is missing or
// unreadable; the description marker alone is only a notice.
func TestRemovalLifecycle(t *testing.T) {
	t.Parallel()
	const newSet = `{"tools":[{"name":"keep","inputSchema":{"type":"object"}}]}`
	oldSet := func(extra string) string {
		return fmt.Sprintf(`{"tools":[{"name":"keep","inputSchema":{"type":"object"}},{"name":"gone","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}%s}]}`, extra)
	}
	meta := func(sunset string) string {
		return fmt.Sprintf(`,"_meta":{"io.mcpctl/deprecated":{"since":"2025-06-01","sunset":%q,"replacement":"keep"}}`, sunset)
	}
	tests := []struct {
		name    string
		extra   string
		now     time.Time
		rule    string
		level   Level
		message string
	}{
		{"not deprecated", "", day("2026-01-01"), "tool-removed", Breaking, "tool removed: every call to it fails"},
		{"before sunset", meta("2026-02-01"), day("2026-01-31"), "tool-removed", Breaking, "its sunset 2026-02-01 has not come (now 2026-01-31)"},
		{"a second before a date-time sunset", meta("2026-02-01T12:00:00Z"), time.Date(2026, 2, 1, 11, 59, 59, 0, time.UTC), "tool-removed", Breaking, "has not come"},
		{"at sunset", meta("2026-02-01"), day("2026-02-01"), "tool-removed-after-sunset", Safe, "removed at or after its sunset 2026-02-01"},
		{"after sunset", meta("2026-02-01"), day("2027-01-01"), "tool-removed-after-sunset", Safe, "removed at or after its sunset 2026-02-01"},
		{"unreadable sunset", meta("next spring"), day("2027-01-01"), "tool-removed", Breaking, `sunset "next spring" is not an RFC 3339 date`},
		{"deprecated without sunset", `,"_meta":{"io.mcpctl/deprecated":{"since":"2025-06-01"}}`, day("2027-01-01"), "tool-removed", Breaking, "deprecated without a sunset date"},
		{"description marker only", `,"description":"DEPRECATED: use keep."`, day("2027-01-01"), "tool-removed", Breaking, "its description said it was deprecated, but no sunset was declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Compare(mustSet(t, oldSet(tt.extra)), mustSet(t, newSet), Options{Now: tt.now})
			if len(r.Changes) != 1 {
				t.Fatalf("changes = %+v, want one", r.Changes)
			}
			c := r.Changes[0]
			if c.Rule != tt.rule || c.Level != tt.level || c.Tool != "gone" || !strings.Contains(c.Message, tt.message) {
				t.Errorf("got %s %v %s %q; want %s %v gone, message containing %q", c.Rule, c.Level, c.Tool, c.Message, tt.rule, tt.level, tt.message)
			}
		})
	}
}

// A renamed tool past its sunset is reported as removed after sunset
// (safe) but keeps the facade suggestion.
func TestRemovedAfterSunsetKeepsSuggestion(t *testing.T) {
	t.Parallel()
	old := mustSet(t, `{"tools":[{"name":"photos.list","inputSchema":{"type":"object","properties":{"album":{"type":"string"}}},"_meta":{"io.mcpctl/deprecated":{"sunset":"2026-01-01"}}}]}`)
	new := mustSet(t, `{"tools":[{"name":"photos_list","inputSchema":{"type":"object","properties":{"album":{"type":"string"}}}}]}`)
	r := Compare(old, new, Options{Now: day("2026-06-01")})
	if len(r.Changes) != 2 || r.Changes[1].Rule != "tool-added" {
		t.Fatalf("changes = %+v, want tool-removed-after-sunset and tool-added", r.Changes)
	}
	c := r.Changes[0]
	if c.Rule != "tool-removed-after-sunset" || c.Level != Safe || c.Facade == nil || c.Facade.Tool != "photos_list" {
		t.Errorf("got %+v", c)
	}
	// Before the sunset it is a facade-level rename, and the old name's
	// deprecation is not reported as withdrawn on the new tool.
	r = Compare(old, new, Options{Now: day("2025-06-01")})
	if len(r.Changes) != 1 || r.Changes[0].Rule != "tool-renamed" || r.Level != Facade || !strings.Contains(r.Changes[0].Message, "sunset 2026-01-01 has not come") {
		t.Errorf("before sunset: %+v", r.Changes)
	}
}

func TestNowDefaultsToClock(t *testing.T) {
	t.Parallel()
	// A sunset far in the past is past whatever the clock says; far in the
	// future, not yet. No wall-clock value is asserted.
	const newSet = `{"tools":[]}`
	past := `{"tools":[{"name":"gone","inputSchema":{"type":"object"},"_meta":{"io.mcpctl/deprecated":{"sunset":"2000-01-01"}}}]}`
	future := `{"tools":[{"name":"gone","inputSchema":{"type":"object"},"_meta":{"io.mcpctl/deprecated":{"sunset":"9999-01-01"}}}]}`
	if r := Compare(mustSet(t, past), mustSet(t, newSet), Options{}); r.Changes[0].Rule != "tool-removed-after-sunset" {
		t.Errorf("past sunset with zero Now: %s", r.Changes[0].Rule)
	}
	if r := Compare(mustSet(t, future), mustSet(t, newSet), Options{}); r.Changes[0].Rule != "tool-removed" {
		t.Errorf("future sunset with zero Now: %s", r.Changes[0].Rule)
	}
}
