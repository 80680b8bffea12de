package serve

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/serveconfig"
)

// The call counters /status and /metrics show are kept once: these tests
// make calls of every outcome on both sides of a blue/green rollout and
// check that the two endpoints tell the same numbers, and that the
// metric families keep their names, help and series.

const countersGreen = `server: {name: docs, version: 2.0.0}
tools:
  - name: search
    inputSchema: {type: object, properties: {query: {type: string}}, required: [query]}
    facade: {rename: {q: query}}
    handler: {static: {text: green}}
  - name: not_json
    inputSchema: {type: object}
    outputSchema: {type: object}
    handler: {exec: {command: [/bin/echo, plain words]}}
`

const countersBlue = `server: {name: docs, version: 1.0.0}
tools:
  - name: search
    inputSchema: {type: object, properties: {q: {type: string}}, required: [q]}
    handler: {static: {text: blue}}
`

// countersServer starts a server on countersGreen with a blue side from
// countersBlue taking new sessions, and calls: on blue, one valid, one
// invalid and one unknown; on green (after new sessions moved there) one
// valid, one the facade translates, one invalid, one whose handler
// breaks the outputSchema and one unknown.
func countersServer(t *testing.T) *Server {
	t.Helper()
	s, path := startServer(t, countersGreen) // its fake clock holds the retirement timer
	s.startRollout(buildCountersBlue(t, s, path), serveconfig.Rollout{NewSessions: serveconfig.SideBlue, RetireBlueAfter: time.Hour}, "")
	blue := sideClient(t, s)
	s.setNewSessions(serveconfig.SideGreen)
	green := sideClient(t, s)
	for _, c := range []struct {
		c    *sdkClient
		tool string
		args map[string]any
	}{
		{blue, "search", map[string]any{"q": "a"}},
		{blue, "search", map[string]any{"q": 1}},
		{blue, "nope", nil},
		{green, "search", map[string]any{"query": "a"}},
		{green, "search", map[string]any{"q": "a"}},
		{green, "search", map[string]any{}},
		{green, "not_json", map[string]any{}},
		{green, "nope", nil},
	} {
		_, _ = c.c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	}
	return s
}

func buildCountersBlue(t *testing.T, s *Server, path string) *Generation {
	t.Helper()
	cfg, err := serveconfig.LoadConfig(writeFile(t, filepath.Dir(path), "blue.yaml", countersBlue))
	if err != nil {
		t.Fatal(err)
	}
	blue, err := s.buildBlue(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return blue
}

func sideClient(t *testing.T, s *Server) *sdkClient {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return newSDKClient(t, ct, "2025-11-25")
}

// parseMetrics reads the samples of a Prometheus text exposition:
// `name{labels}` → value.
func parseMetrics(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// samples returns the samples of one family, by their labels.
func samples(m map[string]float64, family string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if labels, ok := strings.CutPrefix(k, family+"{"); ok {
			out["{"+labels] = int64(v)
		}
	}
	return out
}

func TestStatusAndMetricsAgree(t *testing.T) {
	t.Parallel()
	s := countersServer(t)
	st := s.Status()
	m := parseMetrics(t, metricsText(t, s))

	wantCalls := map[string]CallCounts{"search": {OK: 3, Invalid: 2}, "not_json": {Error: 1}}
	if d := cmp.Diff(wantCalls, st.Calls); d != "" {
		t.Errorf("/status calls mismatch (-want +got):\n%s", d)
	}
	fromStatus := map[string]int64{`{outcome="unknown",tool=""}`: 2}
	for tool, c := range st.Calls {
		for outcome, n := range map[string]int64{OutcomeOK: c.OK, OutcomeError: c.Error, OutcomeInvalid: c.Invalid} {
			fromStatus[`{outcome="`+outcome+`",tool="`+tool+`"}`] = n
		}
	}
	if d := cmp.Diff(fromStatus, samples(m, "mcpctl_serve_calls_total")); d != "" {
		t.Errorf("/metrics calls disagree with /status (-status +metrics):\n%s", d)
	}

	if d := cmp.Diff(map[string]map[string]int64{"search": {"rename": 1}}, st.Facades); d != "" {
		t.Errorf("/status facades mismatch (-want +got):\n%s", d)
	}
	facades := map[string]int64{}
	for tool, rules := range st.Facades {
		for rule, n := range rules {
			facades[`{rule="`+rule+`",tool="`+tool+`"}`] = n
		}
	}
	if d := cmp.Diff(facades, samples(m, "mcpctl_serve_facade_translations_total")); d != "" {
		t.Errorf("/metrics facade translations disagree with /status (-status +metrics):\n%s", d)
	}

	if d := cmp.Diff(map[string]int64{"blue": 3, "green": 5}, st.Rollout.Calls); d != "" {
		t.Errorf("/status rollout calls mismatch (-want +got):\n%s", d)
	}
	sides := map[string]int64{}
	for side, n := range st.Rollout.Calls {
		sides[`{side="`+side+`"}`] = n
	}
	if d := cmp.Diff(sides, samples(m, "mcpctl_serve_rollout_calls_total")); d != "" {
		t.Errorf("/metrics rollout calls disagree with /status (-status +metrics):\n%s", d)
	}
}

// TestRolloutCallsCountFromItsStart: /status counts a rollout's calls
// since it started, /metrics since the process started; both read the
// same counter, the second rollout's status its growth since its start.
func TestRolloutCallsCountFromItsStart(t *testing.T) {
	t.Parallel()
	s := countersServer(t)
	s.retire(s.rollout.Load())
	s.startRollout(buildCountersBlue(t, s, s.opts.ConfigPath), serveconfig.Rollout{NewSessions: serveconfig.SideGreen, RetireBlueAfter: time.Hour}, "")
	c := sideClient(t, s)
	_, _ = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "b"}})
	if d := cmp.Diff(map[string]int64{"blue": 0, "green": 1}, s.Status().Rollout.Calls); d != "" {
		t.Errorf("second rollout's /status calls mismatch (-want +got):\n%s", d)
	}
	want := map[string]int64{`{side="blue"}`: 3, `{side="green"}`: 6}
	if d := cmp.Diff(want, samples(parseMetrics(t, metricsText(t, s)), "mcpctl_serve_rollout_calls_total")); d != "" {
		t.Errorf("/metrics rollout calls mismatch (-want +got):\n%s", d)
	}
}

// TestMetricsNamesUnchanged pins every mcpctl metric family's HELP and
// TYPE lines, and the samples of the call counters, after
// countersServer's calls (testdata/metrics.golden; -update rewrites it).
func TestMetricsNamesUnchanged(t *testing.T) {
	t.Parallel()
	s := countersServer(t)
	var b strings.Builder
	for line := range strings.Lines(metricsText(t, s)) {
		for _, p := range []string{"# HELP mcpctl_", "# TYPE mcpctl_", "mcpctl_serve_calls_total", "mcpctl_serve_facade_translations_total", "mcpctl_serve_rollout_calls_total"} {
			if strings.HasPrefix(line, p) {
				b.WriteString(line)
				break
			}
		}
	}
	path := filepath.Join("testdata", "metrics.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), b.String()); d != "" {
		t.Errorf("/metrics mismatch (-want +got):\n%s", d)
	}
}

// TestInFlightAgrees: /status inFlight and mcpctl_serve_calls_in_flight
// read one count; a call blocked in its handler shows in both.
func TestInFlightAgrees(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, `tools:
  - name: slow
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sleep, "30"]}}
`)
	c := sideClient(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	}()
	waitUntil(t, "the call in flight", func() bool { return s.Status().InFlight == 1 })
	if got := parseMetrics(t, metricsText(t, s))["mcpctl_serve_calls_in_flight"]; got != 1 {
		t.Errorf("mcpctl_serve_calls_in_flight %v while /status has 1 in flight", got)
	}
	cancel()
	recvWithin(t, "the cancelled call's end", done)
	waitUntil(t, "no call in flight", func() bool { return s.Status().InFlight == 0 })
	if got := parseMetrics(t, metricsText(t, s))["mcpctl_serve_calls_in_flight"]; got != 0 {
		t.Errorf("mcpctl_serve_calls_in_flight %v while /status has none in flight", got)
	}
}
