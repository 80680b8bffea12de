package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/upstream"
)

// StatusText writes one server's status (`mcpctl status --admin ADDR`)
// readably: the live generation, the last reload and the refused
// candidates with their findings, pending candidates, upstreams, the
// blue/green rollout, sessions, calls and facade translations; now dates
// the publish and the retirement. Its JSON form is the server's /status
// document as sent (docs/output.md#status-of-one-server).
func StatusText(w io.Writer, st *admin.Status, now time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "serving %s\n", st.Config)
	fmt.Fprintf(&b, "  generation %d  fingerprint %s\n", st.Version, st.Fingerprint)
	fmt.Fprintf(&b, "  published  %s (%s ago)\n", st.PublishedAt.Format(time.RFC3339), now.Sub(st.PublishedAt).Round(time.Second))
	fmt.Fprintf(&b, "  tools (%d): %s\n", len(st.Tools), strings.Join(st.Tools, ", "))
	if st.AllowBreaking {
		b.WriteString("  --allow-breaking is on: the gate lets breaking candidates through\n")
	}
	if !st.Ready {
		b.WriteString("  not ready\n")
	}
	if r := st.LastReload; r != nil {
		fmt.Fprintf(&b, "\nlast reload: %s (%s) at %s\n", r.Result, r.Trigger, r.At.Format(time.RFC3339))
		writeReload(&b, r)
	}
	if n := len(st.Refused); n > 0 {
		fmt.Fprintf(&b, "\nrefused candidates (%d, newest first):\n", n)
		for i := n - 1; i >= 0; i-- {
			r := &st.Refused[i]
			fmt.Fprintf(&b, "  %s (%s)\n", r.At.Format(time.RFC3339), r.Trigger)
			writeReload(&b, r)
		}
	}
	writePending(&b, st.Pending)
	writeUpstreams(&b, st.Upstreams)
	writeRollout(&b, st.Rollout, now)
	writeSessions(&b, st.Sessions)
	writeCalls(&b, st)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeReload writes what one reload did and its findings.
func writeReload(b *strings.Builder, r *admin.ReloadResult) {
	switch r.Result {
	case admin.ResultPublished:
		fmt.Fprintf(b, "    published generation %d (%s)", r.Version, ShortHash(r.Fingerprint))
		if !r.Changed {
			b.WriteString(", tool contract unchanged: no notification")
		}
		b.WriteString("\n")
		if r.AllowedBreaking {
			b.WriteString("    let through by --allow-breaking\n")
		}
	case admin.ResultQuarantined:
		fmt.Fprintf(b, "    upstream(s) %s quarantined; serving generation %d (%s)\n", strings.Join(r.Quarantined, ", "), r.Version, ShortHash(r.Fingerprint))
		fmt.Fprintf(b, "    pending: %s (mcpctl approve or reject)\n", r.Candidate)
	case admin.ResultRefused:
		if r.Reason != "" {
			fmt.Fprintf(b, "    %s\n", r.Reason)
		}
		for _, e := range r.Errors {
			fmt.Fprintf(b, "    %s\n", e)
		}
	}
	for _, f := range r.Findings {
		writeGateFinding(b, f)
	}
}

// writeGateFinding writes one finding of a reload, with what the gate
// made of it.
func writeGateFinding(b *strings.Builder, f admin.Finding) {
	mark := ""
	switch {
	case f.AllowedBy != "":
		mark = "allowed by gate.allow at " + f.AllowedBy
	case f.NeedsPermission:
		mark = "needs permission"
	}
	fmt.Fprintf(b, "    - %s %s tool %q", f.Level, f.Rule, f.Tool)
	if f.Path != "" {
		fmt.Fprintf(b, " %s %s", f.Direction, f.Path)
	}
	if mark != "" {
		fmt.Fprintf(b, " [%s]", mark)
	}
	b.WriteString("\n")
	if f.Message != "" {
		fmt.Fprintf(b, "      %s\n", f.Message)
	}
	if f.Expired != "" {
		fmt.Fprintf(b, "      %s\n", f.Expired)
	}
}

// writePending lists the candidates waiting for mcpctl approve or reject,
// with their full fingerprints (what those commands take).
func writePending(b *strings.Builder, ps []state.Pending) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\npending candidates (%d; mcpctl approve|reject --admin ADDR FINGERPRINT --reason TEXT):\n", len(ps))
	for _, p := range ps {
		fmt.Fprintf(b, "  %s  refused %s\n", p.Fingerprint, p.Time.Format(time.RFC3339))
		for _, c := range p.Findings {
			fmt.Fprintf(b, "    - %s %s tool %q", c.Level, c.Rule, c.Tool)
			if c.Path != "" {
				fmt.Fprintf(b, " %s %s", c.Direction, c.Path)
			}
			b.WriteString("\n")
			if c.Message != "" {
				fmt.Fprintf(b, "      %s\n", c.Message)
			}
		}
	}
}

// writeUpstreams writes the gateway's upstreams (docs/serve.md#gateway).
func writeUpstreams(b *strings.Builder, ups []upstream.Status) {
	if len(ups) == 0 {
		return
	}
	b.WriteString("\nupstreams:\n")
	for _, u := range ups {
		fmt.Fprintf(b, "  %s  %s  lists %d tools, %d served  %d restarts", u.Name, u.State, u.Tools, u.Served, u.Restarts)
		if u.LastError != "" {
			fmt.Fprintf(b, "  last error: %s", u.LastError)
		}
		b.WriteString("\n")
	}
}

// writeRollout writes the blue/green rollout (docs/serve.md#bluegreen):
// blue's state, when it is retired, and sessions and calls per side.
func writeRollout(b *strings.Builder, ro *admin.RolloutStatus, now time.Time) {
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

// writeSessions writes the session counts: by generation, pinned, and the
// HTTP cap.
func writeSessions(b *strings.Builder, ss admin.SessionStatus) {
	fmt.Fprintf(b, "\nsessions: %d (%d initialized)", ss.Total, ss.Initialized)
	if len(ss.ByGeneration) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(ss.ByGeneration)) {
			label := "generation " + k
			if k == "0" {
				label = "not listed yet"
			}
			parts = append(parts, fmt.Sprintf("%s: %d", label, ss.ByGeneration[k]))
		}
		fmt.Fprintf(b, "; %s", strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	if len(ss.Pinned) > 0 {
		total := 0
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(ss.Pinned)) {
			total += ss.Pinned[k]
			parts = append(parts, fmt.Sprintf("generation %s: %d", k, ss.Pinned[k]))
		}
		fmt.Fprintf(b, "  pinned: %d (%s)\n", total, strings.Join(parts, ", "))
	}
	if ss.Max > 0 {
		fmt.Fprintf(b, "  http: %d of at most %d open, closed after %s idle; %d refused at the cap\n", ss.HTTPOpen, ss.Max, ss.IdleTimeout, ss.Refused)
	}
}

// writeCalls writes the call counts per tool, the calls in flight and the
// facade translations per tool and rule.
func writeCalls(b *strings.Builder, st *admin.Status) {
	if len(st.Calls) > 0 {
		b.WriteString("\ncalls:\n")
		names := slices.Sorted(maps.Keys(st.Calls))
		w := 0
		for _, n := range names {
			w = max(w, len(n))
		}
		for _, n := range names {
			c := st.Calls[n]
			fmt.Fprintf(b, "  %-*s  ok %d  error %d  invalid %d\n", w, n, c.OK, c.Error, c.Invalid)
		}
	}
	if st.InFlight > 0 || st.RefusedAtMax > 0 {
		fmt.Fprintf(b, "  in flight: %d", st.InFlight)
		if st.MaxInFlight > 0 {
			fmt.Fprintf(b, " of at most %d; %d refused at the bound", st.MaxInFlight, st.RefusedAtMax)
		}
		b.WriteString("\n")
	}
	if len(st.Facades) > 0 {
		b.WriteString("\nfacade translations:\n")
		for _, tool := range slices.Sorted(maps.Keys(st.Facades)) {
			rules := st.Facades[tool]
			var parts []string
			for _, r := range slices.Sorted(maps.Keys(rules)) {
				parts = append(parts, fmt.Sprintf("%s %d", r, rules[r]))
			}
			fmt.Fprintf(b, "  %s: %s\n", tool, strings.Join(parts, ", "))
		}
	}
}
