package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// FleetStatus is what `mcpctl status --admin A,B,C` reports about replicas
// of one config behind a load balancer (deploy/README.md).
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

// runStatusFleet asks every replica at once and reports whether they
// converged; ErrFindings (exit 1) when they have not, or one could not be
// asked.
func runStatusFleet(ctx context.Context, s *Streams, opts statusOptions) error {
	fleet := fleetStatus(askReplicas(ctx, opts))
	if opts.Format == "json" {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(fleet); err != nil {
			return err
		}
	} else if _, err := io.WriteString(s.Out, renderFleetStatus(fleet, time.Now())); err != nil {
		return err
	}
	if !fleet.Converged {
		return ErrFindings
	}
	return nil
}

// askReplicas fetches each replica's /status concurrently, in the order
// given.
func askReplicas(ctx context.Context, opts statusOptions) []ReplicaState {
	out := make([]ReplicaState, len(opts.Admins))
	var wg sync.WaitGroup
	for i, admin := range opts.Admins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = ReplicaState{Admin: admin}
			_, st, err := fetchStatus(ctx, admin, opts)
			if err != nil {
				out[i].Error = err.Error()
				return
			}
			out[i].Version, out[i].Fingerprint = st.Version, st.Fingerprint
			out[i].PublishedAt, out[i].Ready = st.PublishedAt, st.Ready
		}()
	}
	wg.Wait()
	return out
}

// fleetStatus decides convergence from the replicas' answers.
func fleetStatus(replicas []ReplicaState) FleetStatus {
	f := FleetStatus{Replicas: replicas}
	first := map[string]time.Time{} // fingerprint → its earliest publish
	unanswered := 0
	for _, r := range replicas {
		if r.Error != "" {
			unanswered++
			continue
		}
		if t, ok := first[r.Fingerprint]; !ok || r.PublishedAt.Before(t) {
			first[r.Fingerprint] = r.PublishedAt
		}
	}
	if len(first) == 1 && unanswered == 0 {
		f.Converged = true
		f.Fingerprint = replicas[0].Fingerprint
	}
	if len(first) > 1 {
		starts := make([]time.Time, 0, len(first))
		for _, t := range first {
			starts = append(starts, t)
		}
		slices.SortFunc(starts, time.Time.Compare)
		f.DivergedSince = &starts[1]
	}
	return f
}

// renderFleetStatus prints one line per replica and the verdict.
func renderFleetStatus(f FleetStatus, now time.Time) string {
	var b strings.Builder
	w := 0
	for _, r := range f.Replicas {
		w = max(w, len(r.Admin))
	}
	for _, r := range f.Replicas {
		if r.Error != "" {
			fmt.Fprintf(&b, "%-*s  unreachable: %s\n", w, r.Admin, r.Error)
			continue
		}
		ready := ""
		if !r.Ready {
			ready = "  not ready"
		}
		fmt.Fprintf(&b, "%-*s  generation %d  fingerprint %s  published %s%s\n",
			w, r.Admin, r.Version, shortHash(r.Fingerprint), r.PublishedAt.UTC().Format(time.RFC3339), ready)
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
	return b.String()
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
