package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/fixtures"
	"github.com/mcpctl/mcpctl/serveconfig"
)

const recordConfig = `server: {name: rec}
tools:
  - name: search
    inputSchema:
      type: object
      properties:
        query: {type: string}
        mode: {enum: [fast, exact]}
        api_key: {type: string}
        auth: {type: object}
      required: [query]
      additionalProperties: false
    handler: {static: {text: found}}
    facade:
      rename: {q: query, key: api_key}
      aliases: [search_docs]
  - name: broken
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/false]}}
record:
  redact: [session, /auth/pin]
`

// recordingServer starts a server on config recording into a fresh
// folder (which does not exist yet: the server creates it).
func recordingServer(t *testing.T, config string, tweak ...func(*testOptions)) (*Server, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	s, _ := startServer(t, config, append([]func(*testOptions){func(o *testOptions) { o.RecordDir = dir }}, tweak...)...)
	return s, dir
}

// sdkSession connects a go-sdk client over the in-memory transport.
func sdkSession(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return cs
}

// recordMetric reads the counter mcpctl_serve_record_<name> of s: the
// series whose reason or kind label is label, or the one series of a
// counter without labels (label "").
func recordMetric(t testing.TB, s *Server, name, label string) float64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "mcpctl_serve_record_"+name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if ls := m.GetLabel(); (label == "" && len(ls) == 0) || (len(ls) == 1 && ls[0].GetValue() == label) {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no series mcpctl_serve_record_%s{%s}", name, label)
	return 0
}

// recordedFile returns the one file in dir and its content.
func recordedFile(t *testing.T, dir string) (string, string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Fatalf("want one record file in %s, got %d", dir, len(ents))
	}
	p := filepath.Join(dir, ents[0].Name())
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, string(b)
}

func TestRecordCalls(t *testing.T) {
	t.Parallel()
	s, dir := recordingServer(t, recordConfig)
	cs := sdkSession(t, s)
	gen := s.Live().Fingerprint
	calls := []struct {
		name, tool, args string
		// protocolError: the call is answered with a JSON-RPC error.
		protocolError bool
		isError       bool
		want          string // the recorded line
	}{
		{"valid", "search", `{"query":"a","mode":"fast"}`, false, false,
			`{"tool":"search","arguments":{"query":"a","mode":"fast"},"generation":"GEN","expect":"accepted"}`},
		{"member order and numbers kept", "search", `{"mode":"exact", "query":"b", "auth":{"n":1.50,"pin":"1234","session":"s"}}`, false, false,
			`{"tool":"search","arguments":{"mode":"exact","query":"b","auth":{"n":1.50,"pin":"[redacted]","session":"[redacted]"}},"generation":"GEN","expect":"accepted"}`},
		{"invalid", "search", `{"p":1}`, false, true,
			`{"tool":"search","arguments":{"p":1},"generation":"GEN","expect":"rejected"}`},
		{"rejected, with a secret under the facade's old name", "search", `{"query":"z","key":"k-789","p":1}`, false, true,
			`{"tool":"search","arguments":{"query":"z","key":"[redacted]","p":1},"generation":"GEN","expect":"rejected"}`},
		{"renamed by the facade", "search", `{"q":"c","api_key":"k-123"}`, false, false,
			`{"tool":"search","arguments":{"q":"c","api_key":"[redacted]"},"generation":"GEN","expect":"translated"}`},
		{"a secret sent under the facade's old name", "search", `{"query":"c2","key":"k-456"}`, false, false,
			`{"tool":"search","arguments":{"query":"c2","key":"[redacted]"},"generation":"GEN","expect":"translated"}`},
		{"alias", "search_docs", `{"query":"d"}`, false, false,
			`{"tool":"search_docs","arguments":{"query":"d"},"generation":"GEN","expect":"translated"}`},
		{"unknown tool", "serch", `{"query":"e"}`, true, false,
			`{"tool":"serch","arguments":{"query":"e"},"generation":"GEN","expect":"unknown-tool"}`},
		{"failed handler", "broken", `{"x":[1,2]}`, false, true,
			`{"tool":"broken","arguments":{"x":[1,2]},"generation":"GEN","expect":"accepted"}`},
		{"no arguments", "broken", ``, false, true,
			`{"tool":"broken","arguments":{},"generation":"GEN","expect":"accepted"}`},
	}
	var want []string
	for _, c := range calls {
		p := &mcp.CallToolParams{Name: c.tool}
		if c.args != "" {
			p.Arguments = json.RawMessage(c.args)
		}
		res, err := cs.CallTool(context.Background(), p)
		if (err != nil) != c.protocolError {
			t.Fatalf("%s: protocol error %v, want %v", c.name, err, c.protocolError)
		}
		if err == nil && res.IsError != c.isError {
			t.Fatalf("%s: isError %v, want %v", c.name, res.IsError, c.isError)
		}
		want = append(want, strings.ReplaceAll(c.want, "GEN", gen))
	}
	s.Close() // drains the queue

	path, got := recordedFile(t, dir)
	if d := cmp.Diff(strings.Join(want, "\n")+"\n", got); d != "" {
		t.Errorf("record mismatch (-want +got):\n%s", d)
	}
	if name, want := filepath.Base(path), regexp.MustCompile(fmt.Sprintf(`^calls-20260115T120000Z-%d-[0-9a-f]{16}\.jsonl$`, os.Getpid())); !want.MatchString(name) {
		t.Errorf("record file %s, want %s", name, want)
	}
	for p, perm := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: mode %v (%v), want %v", p, fi.Mode().Perm(), err, perm)
		}
	}
	if n := recordMetric(t, s, "written_total", ""); n != float64(len(calls)) {
		t.Errorf("written counter %v, want %d", n, len(calls))
	}

	// The recorded folder replays against the same config with every
	// expectation met.
	cfg, err := serveconfig.LoadConfig(s.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	set, err := cfg.Set()
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := fixtures.Read(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("the record does not read as fixtures: %v", err)
	}
	r, err := fixtures.NewReplayer(set, cfg.Facades())
	if err != nil {
		t.Fatal(err)
	}
	rep := r.NewReport()
	var outcomes []fixtures.Outcome
	for i := range recorded {
		r.Add(rep, &recorded[i])
		res := rep.Calls[len(rep.Calls)-1]
		outcomes = append(outcomes, res.Outcome)
		if res.Unexpected {
			t.Errorf("%s: replay says %s, the record expects %s", res.Source, res.Outcome, res.Expect)
		}
	}
	wantOutcomes := []fixtures.Outcome{fixtures.Accepted, fixtures.Accepted, fixtures.Rejected, fixtures.Rejected, fixtures.Translated, fixtures.Translated, fixtures.Translated, fixtures.UnknownTool, fixtures.Accepted, fixtures.Accepted}
	if d := cmp.Diff(wantOutcomes, outcomes); d != "" {
		t.Errorf("replay outcomes mismatch (-want +got):\n%s", d)
	}
	if rep.Unexpected != 0 || rep.Fails(fixtures.FailOnRejected) {
		t.Errorf("replay of the record fails: %d unexpected", rep.Unexpected)
	}
}

// The record counters exist before anything happened, so an alert on
// drops sees 0, not no data.
func TestRecordMetricsPresentFromStart(t *testing.T) {
	t.Parallel()
	s, _ := recordingServer(t, recordConfig)
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "mcpctl_serve_record_") {
			got[mf.GetName()] = len(mf.GetMetric())
		}
	}
	want := map[string]int{"mcpctl_serve_record_written_total": 1, "mcpctl_serve_record_dropped_total": 4, "mcpctl_serve_record_errors_total": 4}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series per metric mismatch (-want +got):\n%s", d)
	}
}

// A reload that adds a redact entry applies to sessions pinned to the
// generation before it: redaction is policy, not contract.
func TestRecordRedactionOfPinnedSession(t *testing.T) {
	t.Parallel()
	const cfg = `server: {name: rec}
tools:
  - name: t
    inputSchema: {type: object}
    handler: {static: {text: ok}}
record: {redact: [a]}
`
	dir := filepath.Join(t.TempDir(), "rec")
	s, path := startServer(t, cfg, func(o *testOptions) { o.RecordDir = dir }, pinning)
	c := connected(t, s)
	callText(t, c, "t", map[string]any{"a": "A", "b": "B1"})
	writeFile(t, filepath.Dir(path), filepath.Base(path), strings.Replace(cfg, "[a]", "[a, b]", 1))
	if res := s.Reload(context.Background(), "test"); res.Result != ResultPublished {
		t.Fatalf("reload = %s %v", res.Result, res.Errors)
	}
	if st := s.notifier.state(c.ss); st == nil || st.pin.Load() == nil || st.pin.Load().gen == s.Live() {
		t.Fatal("the session is not pinned to the first generation")
	}
	callText(t, c, "t", map[string]any{"a": "A", "b": "B2"})
	s.Close()
	_, got := recordedFile(t, dir)
	if strings.Contains(got, "B2") || !strings.Contains(got, "B1") {
		t.Errorf("want B1 (before the reload) in clear and B2 redacted:\n%s", got)
	}
}

// A call is recorded before its handler runs, so a call abandoned at
// shutdown (its handler still running) is in the record.
func TestRecordBeforeHandler(t *testing.T) {
	t.Parallel()
	s, entered, unblock := slowToolServer(t)
	release := sync.OnceFunc(func() { close(unblock) })
	defer release() // also when the test fails: the handler must end
	dir := filepath.Join(t.TempDir(), "rec")
	rs, err := New(context.Background(), Options{ConfigPath: s.opts.ConfigPath, RecordDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.Close)
	cs := sdkSession(t, rs)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"n": 1}})
		done <- err
	}()
	recvWithin(t, "the call to start", entered)
	waitCounter(t, "written", func() float64 { return recordMetric(t, rs, "written_total", "") }, 1)
	release()
	if err := recvWithin(t, "the call", done); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	if _, got := recordedFile(t, dir); strings.Count(got, "\n") != 1 || !strings.Contains(got, `"expect":"accepted"`) {
		t.Errorf("want the call recorded once, accepted:\n%s", got)
	}
}

func TestRecordConcurrentCallsWholeLines(t *testing.T) {
	t.Parallel()
	s, dir := recordingServer(t, recordConfig)
	const clients, perClient = 6, 40
	big := strings.Repeat("x", 9000) // more than a pipe buffer's atomic write
	var wg sync.WaitGroup
	for i := range clients {
		cs := sdkSession(t, s)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range perClient {
				q := fmt.Sprintf("%d-%d-%s", i, j, big)
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q}}); err != nil {
					t.Errorf("call: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	s.Close()
	_, got := recordedFile(t, dir)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != clients*perClient {
		t.Fatalf("%d lines, want %d", len(lines), clients*perClient)
	}
	seen := map[string]bool{}
	for i, l := range lines {
		v, err := canon.Parse([]byte(l))
		if err != nil {
			t.Fatalf("line %d is not whole JSON: %v", i+1, err)
		}
		q := v.Get("arguments").Get("query").Str
		if !strings.HasSuffix(q, big) {
			t.Fatalf("line %d: query cut: %.40q…", i+1, q)
		}
		seen[strings.TrimSuffix(q, big)] = true
	}
	if len(seen) != clients*perClient {
		t.Errorf("%d distinct calls recorded, want %d", len(seen), clients*perClient)
	}
}

// waitCounter waits until the counter read by get reaches n (the writer
// works after the call is answered).
func waitCounter(t *testing.T, what string, get func() float64, n float64) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for get() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s stayed at %v, want %v", what, get(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkRecordCall measures what --record costs a tools/call over the
// in-memory go-sdk client (x-baseline: recorded against not recorded, in
// alternating rounds of one run); the writer's cost per line is
// recording.BenchmarkAppendRecord.
func BenchmarkRecordCall(b *testing.B) {
	args := json.RawMessage(`{"query":"a fairly ordinary query","mode":"fast","api_key":"k","auth":{"pin":"1","n":3}}`)
	// connect serves recordConfig, recording into a folder when rec is
	// set, and returns a connected go-sdk client.
	connect := func(b *testing.B, rec bool) *mcp.ClientSession {
		opts := Options{ConfigPath: writeFile(b, b.TempDir(), "c.yaml", recordConfig)}
		if rec {
			opts.RecordDir = filepath.Join(b.TempDir(), "rec")
		}
		s, err := New(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	// call: the same tools/call on the same config, recorded or not, in
	// alternating rounds so machine load affects both alike; the ratio is
	// what --record costs a call.
	b.Run("call", func(b *testing.B) {
		plain, recorded := connect(b, false), connect(b, true)
		run := func(cs *mcp.ClientSession, n int) time.Duration {
			start := time.Now()
			for range n {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
			return time.Since(start)
		}
		const rounds = 5
		n := max(b.N/rounds, 1)
		var plainT, recT time.Duration
		b.ResetTimer()
		for range rounds {
			plainT += run(plain, n)
			recT += run(recorded, n)
		}
		b.ReportMetric(float64(recT.Nanoseconds())/float64(n*rounds), "ns/op")
		b.ReportMetric(float64(plainT.Nanoseconds())/float64(n*rounds), "baseline-ns/op")
		b.ReportMetric(float64(recT)/float64(plainT), "x-baseline")
	})
}
