package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// FleetStatus is what `mcpctl status --admin A,B,C` reports about replicas
// of one config behind a load balancer (deploy/README.md); its JSON form is
// docs/output.md#fleet-status (schema
// docs/schema/fleet-status-output.schema.json).
type FleetStatus struct {
	// Converged: every replica answered and all serve one fingerprint,
	// then given in Fingerprint.
	Converged   bool   `json:"converged"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// DivergedSince, when not converged, is the latest moment since which
	// the fleet has certainly served two fingerprints at once: the
	// second-earliest of the fingerprints' first publish times (each
	// replica's /status publishedAt). A replica that restarted republishes
	// later, so the divergence may be older, never younger. Nil when fewer
	// than two fingerprints answered.
	DivergedSince *time.Time     `json:"divergedSince,omitempty"`
	Replicas      []ReplicaState `json:"replicas"`
}

// ReplicaState is one replica's answer: its live generation, or Error when
// its admin listener could not be asked.
type ReplicaState struct {
	Admin       string    `json:"admin"`
	Version     uint64    `json:"version,omitempty"`
	Fingerprint string    `json:"fingerprint,omitempty"`
	PublishedAt time.Time `json:"publishedAt,omitzero"`
	Ready       bool      `json:"ready"`
	Error       string    `json:"error,omitempty"`
}

// FleetJSON writes f indented, with a final newline.
func FleetJSON(w io.Writer, f FleetStatus) error { return encodeJSON(w, f) }

// FleetText writes one line per replica and the verdict; now dates the
// divergence.
func FleetText(w io.Writer, f FleetStatus, now time.Time) error {
	var b strings.Builder
	width := 0
	for _, r := range f.Replicas {
		width = max(width, len(r.Admin))
	}
	for _, r := range f.Replicas {
		writeReplica(&b, r, width)
	}
	switch {
	case f.Converged:
		fmt.Fprintf(&b, "converged: %d replicas serve fingerprint %s\n", len(f.Replicas), f.Fingerprint)
	case f.DivergedSince != nil:
		fmt.Fprintf(&b, "diverged: %d fingerprints live, since %s (%s ago at least)\n",
			countFingerprints(f.Replicas), f.DivergedSince.UTC().Format(time.RFC3339), now.Sub(*f.DivergedSince).Round(time.Second))
	default:
		b.WriteString("not converged: not every replica answered\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeReplica(b *strings.Builder, r ReplicaState, width int) {
	if r.Error != "" {
		fmt.Fprintf(b, "%-*s  unreachable: %s\n", width, r.Admin, r.Error)
		return
	}
	ready := ""
	if !r.Ready {
		ready = "  not ready"
	}
	fmt.Fprintf(b, "%-*s  generation %d  fingerprint %s  published %s%s\n",
		width, r.Admin, r.Version, ShortHash(r.Fingerprint), r.PublishedAt.UTC().Format(time.RFC3339), ready)
}

func countFingerprints(replicas []ReplicaState) int {
	seen := map[string]bool{}
	for _, r := range replicas {
		if r.Error == "" {
			seen[r.Fingerprint] = true
		}
	}
	return len(seen)
}

// ShortHash is the first 12 hex digits of a fingerprint, as the text
// formats print it.
func ShortHash(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}
