package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
)

// TestIssue10Item6IgnoreUntilDeprecated: ignores took expires: while serve's
// gate.allow took until:, each rejecting the other's name. An ignore still
// takes expires: (no longer applies from that day); until: (through that
// day) is read with a located deprecation warning; both at once is an error.
func TestIssue10Item6IgnoreUntilDeprecated(t *testing.T) {
	t.Parallel()
	const head = "ignore:\n  - {rule: tool-removed, tool: a, reason: r, "
	type got struct {
		Expires  time.Time
		Warnings []string
	}
	for _, tc := range []struct {
		yaml string
		want got
	}{
		{head + "expires: 2027-01-31}\n", got{Expires: time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)}},
		{head + "until: 2027-01-31}\n", got{Expires: time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), Warnings: []string{
			".mcpctl.yaml:2:46: ignore[0]: until is deprecated; write expires: 2027-02-01 (the first day the ignore no longer applies)"}}},
	} {
		c, err := Parse(".mcpctl.yaml", []byte(tc.yaml), diff.Rules())
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		if d := cmp.Diff(tc.want, got{c.Ignores[0].Expires, c.Warnings}); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.yaml, d)
		}
	}
	_, err := Parse(".mcpctl.yaml", []byte(head+"expires: 2027-01-31, until: 2027-01-31}\n"), diff.Rules())
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "give expires only") {
		t.Errorf("both expires and until: got %v", err)
	}
}

// TestIssue10Item6LintIgnoreUntil: the ignores of the lint: section take
// the same expiry keys as diff's: expires (a date or an RFC 3339 time),
// until with a located deprecation warning, never both.
func TestIssue10Item6LintIgnoreUntil(t *testing.T) {
	t.Parallel()
	const head = "lint:\n  ignore:\n    - {rule: schema-draft, tool: '*', reason: r, "
	for _, tc := range []struct {
		yaml    string
		expires time.Time
		warning string
	}{
		{head + "expires: 2027-01-31}\n", time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC), ""},
		{head + "expires: 2027-01-31T12:00:00Z}\n", time.Date(2027, 1, 31, 12, 0, 0, 0, time.UTC), ""},
		{head + "until: 2027-01-31}\n", time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC),
			".mcpctl.yaml:3:50: lint: ignore[0]: until is deprecated; write expires: 2027-02-01 (the first day the ignore no longer applies)"},
	} {
		c, err := Parse(".mcpctl.yaml", []byte(tc.yaml), diff.Rules())
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		if got := c.Lint.Ignores[0].Expires; !got.Equal(tc.expires) {
			t.Errorf("%s: expires %v, want %v", tc.yaml, got, tc.expires)
		}
		if got := strings.Join(c.Warnings, "\n"); got != tc.warning {
			t.Errorf("%s: warnings %q, want %q", tc.yaml, got, tc.warning)
		}
	}
	_, err := Parse(".mcpctl.yaml", []byte(head+"expires: 2027-01-31, until: 2027-01-31}\n"), diff.Rules())
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "give expires only") {
		t.Errorf("both expires and until: got %v", err)
	}
}
