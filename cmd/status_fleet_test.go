package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/serve"
)

// fleetReplica is one in-process serve replica with its admin listener.
type fleetReplica struct {
	srv   *serve.Server
	admin *httptest.Server
}

func (r fleetReplica) addr() string { return strings.TrimPrefix(r.admin.URL, "http://") }

// startFleet starts n replicas of the config at path (one shared config
// folder, as in deploy/haproxy/haproxy.cfg).
func startFleet(t *testing.T, path string, n int) []fleetReplica {
	t.Helper()
	out := make([]fleetReplica, n)
	for i := range out {
		srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
		if err != nil {
			t.Fatal(err)
		}
		admin := httptest.NewServer(srv.AdminHandler(serve.AdminOptions{}))
		t.Cleanup(func() { admin.Close(); srv.Close() })
		out[i] = fleetReplica{srv: srv, admin: admin}
	}
	return out
}

func runStatusArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"status"}, args...), &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// TestStatusFleet: `mcpctl status --admin A,B,C` over three replicas of one
// config folder – converged, then diverged while a safe change has reached
// two of them (exit 1, since the first publish of the new fingerprint),
// then converged again on the new fingerprint.
func TestStatusFleet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	const tool = "  - name: %s\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"
	write := func(names ...string) {
		s := "tools:\n"
		for _, n := range names {
			s += strings.ReplaceAll(tool, "%s", n)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	fleet := startFleet(t, path, 3)
	list := fleet[0].addr() + "," + fleet[1].addr() + "," + fleet[2].addr()
	old := fleet[0].srv.Live().Fingerprint

	code, out, errOut := runStatusArgs(t, "--admin", list)
	if code != ExitOK || !strings.Contains(out, "converged: 3 replicas serve fingerprint "+old) {
		t.Fatalf("converged fleet: exit %d\n%s%s", code, out, errOut)
	}

	write("a", "b") // a safe change, reaching two replicas
	for _, r := range fleet[:2] {
		if res := r.srv.Reload(context.Background(), "test"); res.Result != serve.ResultPublished {
			t.Fatalf("reload: %s", res.Result)
		}
	}
	since := fleet[0].srv.Live().PublishedAt
	code, out, errOut = runStatusArgs(t, "--admin", list)
	wantLine := "diverged: 2 fingerprints live, since " + since.UTC().Format(time.RFC3339)
	if code != ExitFindings || !strings.Contains(out, wantLine) {
		t.Errorf("diverged fleet: exit %d, want %d and %q\n%s%s", code, ExitFindings, wantLine, out, errOut)
	}
	for i, r := range fleet {
		g := r.srv.Live()
		want := r.addr() + "  generation " + map[bool]string{true: "2", false: "1"}[i < 2] + "  fingerprint " + report.ShortHash(g.Fingerprint)
		if !strings.Contains(out, want) {
			t.Errorf("replica %d: output lacks %q:\n%s", i, want, out)
		}
	}

	code, out, _ = runStatusArgs(t, "--admin", list, "--format", "json")
	var got report.FleetStatus
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitFindings {
		t.Fatalf("--format json: exit %d, %v\n%s", code, err, out)
	}
	if got.Converged || got.DivergedSince == nil || !got.DivergedSince.Equal(since) {
		t.Errorf("--format json: converged %v, divergedSince %v, want false and %v", got.Converged, got.DivergedSince, since)
	}

	if res := fleet[2].srv.Reload(context.Background(), "test"); res.Result != serve.ResultPublished {
		t.Fatalf("reload: %s", res.Result)
	}
	newFP := fleet[2].srv.Live().Fingerprint
	// Repeated --admin works as the comma-separated list.
	code, out, errOut = runStatusArgs(t, "--admin", fleet[0].addr(), "--admin", fleet[1].addr(), "--admin", fleet[2].addr())
	if code != ExitOK || newFP == old || !strings.Contains(out, "converged: 3 replicas serve fingerprint "+newFP) {
		t.Errorf("converged again: exit %d\n%s%s", code, out, errOut)
	}

	// A replica that is gone: not converged, exit 1, named.
	fleet[1].admin.Close()
	code, out, _ = runStatusArgs(t, "--admin", list)
	if code != ExitFindings || !strings.Contains(out, fleet[1].addr()+"  unreachable: ") || !strings.Contains(out, "not converged: not every replica answered") {
		t.Errorf("a replica gone: exit %d\n%s", code, out)
	}
}

// TestFleetStatusDivergedSince pins the rule for "since when": the
// second-earliest first publish among the live fingerprints, which a
// restarted replica (published again later) can only make younger.
func TestFleetStatusDivergedSince(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	for _, tc := range []struct {
		name     string
		replicas []report.ReplicaState
		want     *time.Time
		conv     bool
	}{
		{"converged", []report.ReplicaState{{Fingerprint: "x", PublishedAt: at(0)}, {Fingerprint: "x", PublishedAt: at(5)}}, nil, true},
		{"one moved on", []report.ReplicaState{{Fingerprint: "x", PublishedAt: at(0)}, {Fingerprint: "y", PublishedAt: at(7)}, {Fingerprint: "y", PublishedAt: at(3)}}, ptr(at(3)), false},
		{"three fingerprints", []report.ReplicaState{{Fingerprint: "x", PublishedAt: at(0)}, {Fingerprint: "y", PublishedAt: at(2)}, {Fingerprint: "z", PublishedAt: at(4)}}, ptr(at(2)), false},
		{"old one restarted", []report.ReplicaState{{Fingerprint: "x", PublishedAt: at(9)}, {Fingerprint: "y", PublishedAt: at(2)}}, ptr(at(9)), false},
		{"one unreachable", []report.ReplicaState{{Fingerprint: "x", PublishedAt: at(0)}, {Error: "refused"}}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fleetStatus(tc.replicas)
			if got.Converged != tc.conv {
				t.Errorf("converged %v, want %v", got.Converged, tc.conv)
			}
			if diff := cmp.Diff(tc.want, got.DivergedSince); diff != "" {
				t.Errorf("divergedSince mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
