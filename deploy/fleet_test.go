package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/serve"
	"github.com/mcpctl/mcpctl/toolset"
)

// The fleet test runs real processes (HAProxy and six mcpctl serve
// replicas) and takes seconds; `go test ./...` skips it, .ci/run sets
// MCPCTL_FLEET=1.
const fleetEnv = "MCPCTL_FLEET"

const (
	fleetClients = 8
	// fleetWait bounds every wait of the test (a replica ready, a change
	// converged); fleetDeadline bounds the whole test.
	fleetWait     = 20 * time.Second
	fleetDeadline = 3 * time.Minute
	// measureFor is how long the throughput comparison loads each target.
	measureFor = 2 * time.Second
)

const fleetTool = `  - name: %s
    description: %s
    inputSchema:
      type: object
      properties:
        q: {type: string}
      additionalProperties: false
    handler:
      static: {text: "%s"}
`

// fleetConfig is a serve config with the named tools.
func fleetConfig(gate string, tools ...string) string {
	s := "server: {name: fleet, version: 1.0.0}\ntools:\n"
	for _, name := range tools {
		s += fmt.Sprintf(fleetTool, name, "Answers "+name+".", name)
	}
	return s + gate
}

// replica is one `mcpctl serve --http … --admin …` process.
type replica struct {
	name        string
	http, admin string
	stateless   bool
	log         bytes.Buffer
}

type fleet struct {
	t        *testing.T
	dir, bin string
	cfg      string
	replicas []*replica
	// stateful and stateless are HAProxy's frontends (/mcp URLs).
	stateful, stateless string
}

// TestFleet runs deploy/haproxy/haproxy.cfg (ports substituted) in front of
// three stateful and three --stateless replicas sharing one config folder:
// eight go-sdk clients (half through each frontend) list and call while
// the config goes through a safe change. Zero failed calls, every listed
// fingerprint one the replicas published (and the list's own content),
// the fleet converged at the end per `mcpctl status --admin A,B,C`. Then
// calls per second through HAProxy vs one replica alone, in this run.
func TestFleet(t *testing.T) {
	t.Parallel()
	if os.Getenv(fleetEnv) == "" {
		t.Skipf("the fleet test runs real processes; set %s=1 (.ci/run does)", fleetEnv)
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatalf("%s=1 but haproxy is not installed (apt-get install -y haproxy; .ci/run does)", fleetEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), fleetDeadline)
	defer cancel()
	f := startFleet(ctx, t, haproxy)

	first := f.convergedOn(ctx, "")
	published := map[string]bool{first: true}
	load := startLoad(ctx, f)
	load.waitCalls(t, 50)

	f.writeConfig(fleetConfig("", "a", "b")) // a safe change: a tool added
	fp := f.convergedOn(ctx, first)
	published[fp] = true
	load.waitCalls(t, load.calls.Load()+50)
	load.stop()

	if len(load.failures) > 0 {
		t.Errorf("%d failed calls of %d, first: %v", len(load.failures), load.calls.Load(), load.failures[0])
	}
	for fp := range load.listed {
		if !published[fp] {
			t.Errorf("a client listed fingerprint %s, which no replica published (published: %v)", fp, published)
		}
	}
	f.checkSpread(ctx)
	t.Logf("%d calls and %d lists, zero failed; fingerprints listed: %d", load.calls.Load(), load.lists.Load(), len(load.listed))

	t.Run("forward-incompatible under compatibility full, then approval", func(t *testing.T) {
		f.forwardIncompatible(ctx, t, published, fp)
	})

	ratio(ctx, t, f)
}

func startFleet(ctx context.Context, t *testing.T, haproxy string) *fleet {
	f := &fleet{t: t, dir: t.TempDir()}
	f.bin = filepath.Join(f.dir, "mcpctl")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", f.bin, "github.com/mcpctl/mcpctl/cmd/mcpctl").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.Mkdir(filepath.Join(f.dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.cfg = filepath.Join(f.dir, "config", "mcpctl.serve.yaml")
	f.writeConfig(fleetConfig("", "a"))

	ports := map[int]int{}
	for _, s := range cfgPort.FindAllString(readHAProxy(t), -1) {
		old, _ := strconv.Atoi(s)
		if _, ok := ports[old]; !ok {
			ports[old] = freePort(t)
		}
	}
	for _, s := range haproxyServers(t, readHAProxy(t)) {
		f.startReplica(s, ports)
	}
	for _, r := range f.replicas {
		f.waitReady(ctx, r)
	}
	cfg := fleetHAProxyConfig(t, f.dir, ports)
	f.stateful = fmt.Sprintf("http://127.0.0.1:%d%s", ports[18930], serve.MCPPath)
	f.stateless = fmt.Sprintf("http://127.0.0.1:%d%s", ports[18939], serve.MCPPath)
	var hlog bytes.Buffer
	f.start("haproxy", &hlog, haproxy, "-db", "-f", cfg)
	for _, u := range []string{f.stateful, f.stateless} {
		f.waitHTTP(ctx, strings.TrimSuffix(u, serve.MCPPath)+"/", func(code int) bool { return code > 0 })
	}
	return f
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startReplica starts the replica behind one server line of haproxy.cfg,
// with its own --state (as the file's header documents).
func (f *fleet) startReplica(s haproxyServer, ports map[int]int) {
	r := &replica{
		name:      s.Name,
		http:      fmt.Sprintf("127.0.0.1:%d", ports[s.Port]),
		admin:     fmt.Sprintf("127.0.0.1:%d", ports[s.AdminPort]),
		stateless: s.Backend == "mcpctl_stateless",
	}
	args := []string{"serve", "--http", r.http, "--admin", r.admin, "--log-format", "json", "--shutdown-timeout", "2s"}
	if r.stateless {
		args = append(args, "--stateless")
	}
	args = append(args, "--state", filepath.Join(f.dir, "state-"+s.Name))
	f.start(r.name, &r.log, f.bin, append(args, f.cfg)...)
	f.replicas = append(f.replicas, r)
}

// start runs a process until the test ends: SIGTERM, then SIGKILL after a
// bound.
func (f *fleet) start(name string, log *bytes.Buffer, bin string, args ...string) {
	c := exec.Command(bin, args...)
	w := &lockedWriter{b: log}
	c.Stdout, c.Stderr = w, w
	if err := c.Start(); err != nil {
		f.t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	f.t.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = c.Process.Kill()
			<-done
		}
		if f.t.Failed() {
			f.t.Logf("%s output:\n%s", name, w.String())
		}
	})
}

type lockedWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (f *fleet) waitReady(ctx context.Context, r *replica) {
	f.waitHTTP(ctx, "http://"+r.admin+"/readyz", func(code int) bool { return code == http.StatusOK })
}

// waitHTTP polls url until ok(status) (0: no answer), within fleetWait.
func (f *fleet) waitHTTP(ctx context.Context, url string, ok func(int) bool) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, fleetWait)
	defer cancel()
	for {
		code := 0
		if req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil); err == nil {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
		}
		if ok(code) {
			return
		}
		select {
		case <-ctx.Done():
			f.t.Fatalf("%s: no good answer within %s (last status %d)", url, fleetWait, code)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// writeConfig replaces the shared config atomically (a rename), as a
// ConfigMap update or a deploy does.
func (f *fleet) writeConfig(s string) {
	tmp := f.cfg + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(tmp, f.cfg); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fleet) admins() string {
	var a []string
	for _, r := range f.replicas {
		a = append(a, r.admin)
	}
	return strings.Join(a, ",")
}

// status runs `mcpctl status --admin A,B,C --format json` (exit 0:
// converged, 1: not).
func (f *fleet) status(ctx context.Context) (report.FleetStatus, int) {
	var st report.FleetStatus
	out, err := exec.CommandContext(ctx, f.bin, "status", "--admin", f.admins(), "--format", "json").Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		f.t.Fatalf("mcpctl status: %v", err)
	}
	if err := json.Unmarshal(out, &st); err != nil {
		f.t.Fatalf("mcpctl status --format json: %v\n%s", err, out)
	}
	return st, code
}

// convergedOn waits until every replica serves one fingerprint other
// than not (per `mcpctl status`, exit 0) and returns it.
func (f *fleet) convergedOn(ctx context.Context, not string) string {
	f.t.Helper()
	deadline := time.Now().Add(fleetWait)
	for {
		st, code := f.status(ctx)
		if code == 0 && st.Converged && st.Fingerprint != not {
			return st.Fingerprint
		}
		if code != 0 && code != 1 {
			f.t.Fatalf("mcpctl status: exit %d", code)
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("the fleet did not converge within %s: %+v", fleetWait, st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkSpread: HAProxy spread the calls – every stateless replica
// answered calls (round-robin per request), and more than one stateful
// replica did (sessions spread at initialize, then stuck).
func (f *fleet) checkSpread(ctx context.Context) {
	stateful := 0
	for _, r := range f.replicas {
		st := f.replicaStatus(ctx, r)
		var n int64
		for _, c := range st.Calls {
			n += c.OK
		}
		switch {
		case r.stateless && n == 0:
			f.t.Errorf("stateless replica %s answered no call: not round-robin", r.name)
		case !r.stateless && n > 0:
			stateful++
		}
		f.t.Logf("replica %s (stateless %v): %d calls ok", r.name, r.stateless, n)
	}
	if stateful < 2 {
		f.t.Errorf("only %d stateful replica answered calls", stateful)
	}
}

func (f *fleet) replicaStatus(ctx context.Context, r *replica) serve.Status {
	var st serve.Status
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.admin+"/status", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s /status: %v", r.name, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		f.t.Fatalf("%s /status: %v", r.name, err)
	}
	return st
}

// load is fleetClients go-sdk clients listing and calling in a loop.
type load struct {
	cancel       context.CancelFunc
	wg           sync.WaitGroup
	calls, lists atomic.Int64
	mu           sync.Mutex
	failures     []error
	listed       map[string]bool
}

// startLoad connects fleetClients clients, half through each frontend.
func startLoad(ctx context.Context, f *fleet) *load {
	return startLoadOn(ctx, f.t, func(i int) string {
		if i%2 == 0 {
			return f.stateful
		}
		return f.stateless
	})
}

func startLoadOn(ctx context.Context, t *testing.T, endpoint func(int) string) *load {
	ctx, cancel := context.WithCancel(ctx)
	l := &load{cancel: cancel, listed: map[string]bool{}}
	for i := range fleetClients {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fleet", Version: "1.0.0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint(i)}, nil)
		if err != nil {
			cancel()
			t.Fatalf("client %d: connect %s: %v", i, endpoint(i), err)
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer cs.Close()
			for ctx.Err() == nil {
				l.round(ctx, i, cs)
			}
		}()
	}
	return l
}

// round lists the tools, checks the list is the generation it claims, and
// calls each listed tool once.
func (l *load) round(ctx context.Context, i int, cs *mcp.ClientSession) {
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		l.fail(ctx, fmt.Errorf("client %d: tools/list: %w", i, err))
		return
	}
	l.lists.Add(1)
	fp, err := listedFingerprint(res)
	if err != nil {
		l.fail(ctx, fmt.Errorf("client %d: %w", i, err))
		return
	}
	l.mu.Lock()
	l.listed[fp] = true
	l.mu.Unlock()
	for _, tool := range res.Tools {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: map[string]any{"q": "fleet"}})
		switch {
		case err != nil:
			l.fail(ctx, fmt.Errorf("client %d: tools/call %s: %w", i, tool.Name, err))
		case r.IsError:
			l.fail(ctx, fmt.Errorf("client %d: tools/call %s: an error result", i, tool.Name))
		default:
			l.calls.Add(1)
		}
	}
}

// listedFingerprint is the fingerprint a tools/list result claims
// (serve.GenerationMetaKey), checked against the listed tools themselves.
func listedFingerprint(res *mcp.ListToolsResult) (string, error) {
	gen, _ := res.Meta[serve.GenerationMetaKey].(map[string]any)
	claimed, _ := gen["fingerprint"].(string)
	raw, err := json.Marshal(res)
	if err != nil {
		return "", err
	}
	set, err := toolset.Decode("tools/list", raw)
	if err != nil {
		return "", fmt.Errorf("undecodable tools/list: %w", err)
	}
	if got := set.Fingerprint(); got != claimed {
		return "", fmt.Errorf("tools/list claims %q, lists %s", claimed, got)
	}
	return claimed, nil
}

func (l *load) fail(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return // stopping
	}
	l.mu.Lock()
	l.failures = append(l.failures, err)
	l.mu.Unlock()
}

// waitCalls waits until n calls succeeded in all, within fleetWait.
func (l *load) waitCalls(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(fleetWait)
	for l.calls.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls within %s, want %d", l.calls.Load(), fleetWait, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *load) stop() {
	l.cancel()
	l.wg.Wait()
}

// ratio loads HAProxy's stateful frontend, then the first stateful
// replica alone, each for measureFor with fleetClients clients, and logs
// calls per second of both and their ratio (same run, same machine).
func ratio(ctx context.Context, t *testing.T, f *fleet) {
	rate := func(endpoint string) float64 {
		l := startLoadOn(ctx, t, func(int) string { return endpoint })
		start, before := time.Now(), l.calls.Load()
		time.Sleep(measureFor)
		n := l.calls.Load() - before
		elapsed := time.Since(start)
		l.stop()
		if len(l.failures) > 0 {
			t.Errorf("%s: %d failed calls, first: %v", endpoint, len(l.failures), l.failures[0])
		}
		return float64(n) / elapsed.Seconds()
	}
	fleetRate := rate(f.stateful)
	one := rate("http://" + f.replicas[0].http + serve.MCPPath)
	t.Logf("calls/s: fleet of 3 behind HAProxy %.0f, one replica alone %.0f, ratio %.2f (%d clients, %s each, %d CPUs)",
		fleetRate, one, fleetRate/one, fleetClients, measureFor, runtime.NumCPU())
}

// forwardIncompatible: under gate.compatibility full, a change that old
// replicas could not serve to a client that learnt the new tools (a new
// optional property, refused by additionalProperties: false of the old
// one) is refused by every replica, the fleet keeps serving live, and
// `mcpctl approve` on each replica publishes it. Zero failed calls
// throughout.
func (f *fleet) forwardIncompatible(ctx context.Context, t *testing.T, published map[string]bool, live string) {
	const gate = "gate: {compatibility: full}\n"
	since := time.Now()
	f.writeConfig(fleetConfig(gate, "a", "b")) // the same tools, the mode on
	f.waitReloaded(ctx, t, since, serve.ResultPublished)
	load := startLoadOn(ctx, t, func(i int) string { return [2]string{f.stateful, f.stateless}[i%2] })
	load.waitCalls(t, 50)

	since = time.Now()
	f.writeConfig(strings.Replace(fleetConfig(gate, "a", "b"), "q: {type: string}", "q: {type: string}\n        limit: {type: integer}", 1))
	refused := f.waitReloaded(ctx, t, since, serve.ResultRefused)
	cand := refused[0].Candidate
	for i, r := range refused {
		if r.Candidate == "" || r.Candidate != cand {
			t.Fatalf("replica %s refused candidate %q, replica %s %q", f.replicas[i].name, r.Candidate, f.replicas[0].name, cand)
		}
	}
	if st, code := f.status(ctx); code != 0 || st.Fingerprint != live {
		t.Errorf("after the refusal: status exit %d, fingerprint %s, want 0 and %s still live", code, st.Fingerprint, live)
	}
	f.checkPending(ctx, t, cand)
	for _, r := range f.replicas {
		out, err := exec.CommandContext(ctx, f.bin, "approve", "--admin", r.admin, cand, "--reason", "fleet test: announced").CombinedOutput()
		if err != nil {
			t.Fatalf("mcpctl approve --admin %s: %v\n%s", r.admin, err, out)
		}
	}
	if got := f.convergedOn(ctx, live); got != cand {
		t.Errorf("after approval the fleet serves %s, want the approved %s", got, cand)
	}
	f.checkPending(ctx, t, "")
	published[cand] = true
	load.waitCalls(t, load.calls.Load()+50)
	load.stop()
	if len(load.failures) > 0 {
		t.Errorf("%d failed calls, first: %v", len(load.failures), load.failures[0])
	}
	for fp := range load.listed {
		if !published[fp] {
			t.Errorf("a client listed fingerprint %s, which no replica published", fp)
		}
	}
}

// checkPending: every replica's /status lists exactly cand as pending
// (none when cand is ""), with a finding that fails forward.
func (f *fleet) checkPending(ctx context.Context, t *testing.T, cand string) {
	t.Helper()
	for _, r := range f.replicas {
		p := f.replicaStatus(ctx, r).Pending
		switch {
		case cand == "" && len(p) > 0:
			t.Errorf("replica %s: still pending after approval: %s", r.name, p[0].Fingerprint)
		case cand == "":
		case len(p) != 1 || p[0].Fingerprint != cand:
			t.Errorf("replica %s: pending %+v, want only %s", r.name, p, cand)
		case !failsForward(p[0].Findings):
			t.Errorf("replica %s: the pending candidate's findings name no forward failure: %+v", r.name, p[0].Findings)
		}
	}
}

func failsForward(findings []diff.Change) bool {
	for _, c := range findings {
		if c.Compatibility == diff.Forward {
			return true
		}
	}
	return false
}

// waitReloaded waits until every replica's last reload is after since and
// returns them; each must have the result want.
func (f *fleet) waitReloaded(ctx context.Context, t *testing.T, since time.Time, want string) []serve.ReloadResult {
	t.Helper()
	deadline := time.Now().Add(fleetWait)
	for {
		out := make([]serve.ReloadResult, 0, len(f.replicas))
		for _, r := range f.replicas {
			if st := f.replicaStatus(ctx, r); st.LastReload != nil && !st.LastReload.At.Before(since) {
				out = append(out, *st.LastReload)
			}
		}
		if len(out) == len(f.replicas) {
			for i, r := range out {
				if r.Result != want {
					t.Fatalf("replica %s: reload %s, want %s: %s %v", f.replicas[i].name, r.Result, want, r.Reason, r.Errors)
				}
			}
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d replicas reloaded within %s", len(out), len(f.replicas), fleetWait)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
