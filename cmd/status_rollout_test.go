package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/serve"
)

func TestRenderStatusRollout(t *testing.T) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		blue, want string
	}{
		{"alive", "\nblue/green: blue alive, new sessions get green, blue retires at 2026-01-15T12:30:00Z (in 30m0s)\n  blue   2 sessions  7 calls\n  green  5 sessions  40 calls\n"},
		{"stopped", "\nblue/green: blue stopped, new sessions get green\n  blue   2 sessions  7 calls\n"},
	} {
		st := &serve.Status{Rollout: &serve.RolloutStatus{NewSessions: "green", Blue: tc.blue, RetireAt: now.Add(30 * time.Minute),
			Sessions: map[string]int{"blue": 2, "green": 5}, Calls: map[string]int64{"blue": 7, "green": 40}}}
		if text := renderStatus(st, now); !strings.Contains(text, tc.want) {
			t.Errorf("status output lacks %q:\n%s", tc.want, text)
		}
	}
	if text := renderStatus(&serve.Status{}, now); strings.Contains(text, "blue/green") {
		t.Errorf("status without a rollout mentions one:\n%s", text)
	}
}
