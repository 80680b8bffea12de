package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/serve"
)

// writeRollout prints the blue/green rollout (docs/serve.md#bluegreen):
// blue's state, when it is retired, and sessions and calls per side.
func writeRollout(b *strings.Builder, ro *serve.RolloutStatus, now time.Time) {
	if ro == nil {
		return
	}
	fmt.Fprintf(b, "\nblue/green: blue %s, new sessions get %s", ro.Blue, ro.NewSessions)
	if ro.Blue == "alive" {
		fmt.Fprintf(b, ", blue retires at %s (in %s)", ro.RetireAt.Format(time.RFC3339), ro.RetireAt.Sub(now).Round(time.Second))
	}
	b.WriteString("\n")
	for _, side := range []string{"blue", "green"} {
		fmt.Fprintf(b, "  %-5s  %d sessions  %d calls\n", side, ro.Sessions[side], ro.Calls[side])
	}
}
