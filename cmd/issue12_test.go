package cmd

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/state"
)

const (
	i12v1 = "tools:\n  - name: search\n    inputSchema: {type: object, properties: {q: {type: string}}, required: [q]}\n    handler: {static: {text: ok}}\n"
	// i12v2 renames the required property q to query.
	i12v2 = "tools:\n  - name: search\n    inputSchema: {type: object, properties: {query: {type: string}}, required: [query]}\n    handler: {static: {text: ok}}\n"
)

// freeAddr is a loopback address nothing listens on (a moment ago).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runningServe is `mcpctl serve` run in-process until stop.
type runningServe struct {
	admin  string
	cancel context.CancelFunc
	done   chan result
}

func startServeArgs(t *testing.T, args ...string) *runningServe {
	t.Helper()
	r := &runningServe{admin: freeAddr(t), done: make(chan result, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	args = append([]string{"serve", "--no-watch", "--log-format", "json", "--http", freeAddr(t), "--admin", r.admin}, args...)
	go func() { r.done <- mcpctlCtx(ctx, t, args...) }()
	t.Cleanup(cancel)
	return r
}

// ready waits for /readyz, or for serve to exit (returned).
func (r *runningServe) ready(t *testing.T) *result {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case res := <-r.done:
			return &res
		default:
		}
		if resp, err := http.Get("http://" + r.admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("serve did not become ready")
	return nil
}

func (r *runningServe) stop(t *testing.T) result {
	t.Helper()
	r.cancel()
	return <-r.done
}

func (r *runningServe) status(t *testing.T) serve.Status {
	t.Helper()
	res := mcpctl(t, "status", "--admin", r.admin, "--format", "json")
	var st serve.Status
	if res.code != 0 || json.Unmarshal([]byte(res.out), &st) != nil {
		t.Fatalf("status: %d %s %s", res.code, res.out, res.errOut)
	}
	return st
}

// TestIssue12Acceptance is the issue's acceptance scenario: a restart
// cannot bypass the gate; a fresh state with only gate.baseline exits 5
// with the findings; mcpctl approve publishes, journalled.
func TestIssue12Acceptance(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.yaml")
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stDir := filepath.Join(t.TempDir(), "st")
	write("cfg.yaml", i12v1)
	s1 := startServeArgs(t, "--state", stDir, cfg)
	if res := s1.ready(t); res != nil {
		t.Fatalf("serve exited: %+v", *res)
	}
	v1 := s1.status(t).Fingerprint

	// Rename a required property: refused.
	write("cfg.yaml", i12v2)
	resp, err := http.Post("http://"+s1.admin+"/reload", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("reload: %s, want 409 refused", resp.Status)
	}
	if res := s1.stop(t); res.code != 0 {
		t.Fatalf("stop: %+v", res)
	}

	// Restart: the last accepted bundle is served, the new config pending.
	s2 := startServeArgs(t, "--state", stDir, cfg)
	if res := s2.ready(t); res != nil {
		t.Fatalf("restart exited: %+v", *res)
	}
	st := s2.status(t)
	if st.Fingerprint != v1 || len(st.Pending) != 1 {
		t.Fatalf("restart serves %s (want %s), pending %+v", st.Fingerprint, v1, st.Pending)
	}
	fp := st.Pending[0].Fingerprint
	if text := mcpctl(t, "status", "--admin", s2.admin).out; !strings.Contains(text, fp) || !strings.Contains(text, "input-") {
		t.Errorf("status does not list the pending candidate with its findings:\n%s", text)
	}

	// A fresh state with only the baseline: exit 5 with the findings.
	lock, err := os.ReadFile(filepath.Join(stDir, "contracts", "1.lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	write("tools.lock.json", string(lock))
	write("fresh.yaml", i12v2+"gate: {baseline: tools.lock.json}\n")
	s3 := startServeArgs(t, "--state", filepath.Join(t.TempDir(), "fresh"), filepath.Join(dir, "fresh.yaml"))
	res := s3.ready(t)
	if res == nil || res.code != ExitGateRefused || !strings.Contains(res.errOut, "gate refused the config at start") || !strings.Contains(res.errOut, `tool "search"`) {
		t.Fatalf("fresh state, baseline only: %+v, want exit %d with the findings", res, ExitGateRefused)
	}

	if bad := mcpctl(t, "reject", "--admin", s2.admin, strings.Repeat("0", 64), "--reason", "x"); bad.code != ExitFindings || !strings.Contains(bad.errOut, "no pending candidate") {
		t.Errorf("reject of nothing pending: %+v", bad)
	}
	if bad := mcpctl(t, "approve", "--admin", s2.admin, fp); bad.code != ExitInput {
		t.Errorf("approve without --reason: %+v", bad)
	}

	// Approve: published and journalled.
	ok := mcpctl(t, "approve", "--admin", s2.admin, fp, "--reason", "announced in 2.0")
	if ok.code != 0 || !strings.Contains(ok.out, "published generation 2") {
		t.Fatalf("approve: %+v", ok)
	}
	if again := mcpctl(t, "approve", "--admin", s2.admin, fp, "--reason", "again"); again.code != ExitFindings || !strings.Contains(again.errOut, "no pending candidate") {
		t.Errorf("approve twice: %+v", again)
	}
	if got := s2.status(t); got.Fingerprint != fp || len(got.Pending) != 0 {
		t.Errorf("after approve: serving %s, pending %d", got.Fingerprint, len(got.Pending))
	}
	s2.stop(t)
	sto, err := state.Open(stDir, state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sto.Close()
	es, err := sto.Journal()
	if err != nil {
		t.Fatal(err)
	}
	var approved bool
	for _, e := range es {
		approved = approved || (e.Kind == state.KindApproved && e.Fingerprint == fp && e.Reason == "announced in 2.0")
	}
	if last := sto.Last(); !approved || last.Fingerprint != fp || last.Allowed.Kind != state.Approval {
		t.Errorf("journal %+v; last %+v", es, last)
	}
}

func TestIssue12ExitCodeDocumented(t *testing.T) {
	t.Parallel()
	help := mcpctl(t, "help", "exit-codes").out
	if !strings.Contains(help, "\n  5  gate refused at start") {
		t.Errorf("help exit-codes does not document 5:\n%s", help)
	}
	if exitCode(serve.ErrRefusedAtStart) != ExitGateRefused {
		t.Error("ErrRefusedAtStart does not map to exit 5")
	}
}
