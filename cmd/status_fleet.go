package cmd

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/report"
)

// runStatusFleet asks every replica at once and reports whether they
// converged; ErrFindings (exit 1) when they have not, or one could not be
// asked.
func runStatusFleet(ctx context.Context, s *Streams, opts statusOptions) error {
	fleet := fleetStatus(askReplicas(ctx, opts))
	var err error
	if opts.Format == "json" {
		err = report.FleetJSON(s.Out, fleet)
	} else {
		err = report.FleetText(s.Out, fleet, time.Now())
	}
	if err != nil {
		return err
	}
	if !fleet.Converged {
		return ErrFindings
	}
	return nil
}

// askReplicas fetches each replica's /status concurrently, in the order
// given.
func askReplicas(ctx context.Context, opts statusOptions) []report.ReplicaState {
	out := make([]report.ReplicaState, len(opts.Admins))
	var wg sync.WaitGroup
	for i, admin := range opts.Admins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = report.ReplicaState{Admin: admin}
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
func fleetStatus(replicas []report.ReplicaState) report.FleetStatus {
	f := report.FleetStatus{Replicas: replicas}
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
