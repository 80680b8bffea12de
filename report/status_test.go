package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/admin"
	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/state"
	"github.com/mcpctl/mcpctl/upstream"
)

// statuses are one-server /status documents: a server just started, and
// one with everything a status can hold (a refused reload with findings,
// a pending candidate, upstreams, a blue/green rollout, pinned and HTTP
// sessions, calls and facade translations).
func statuses() map[string]*admin.Status {
	at := func(min int) time.Time { return time.Date(2026, 7, 1, 12, min, 0, 0, time.UTC) }
	fpA, fpB := "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90", "b7e2d1c0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2"
	removed := diff.Change{Rule: "tool-removed", Level: diff.Breaking, Direction: diff.ToolD, Tool: "fetch_document",
		Old: json.RawMessage(`{"name":"fetch_document"}`), New: json.RawMessage("null"), Witness: json.RawMessage("null"),
		Message: `tool "fetch_document" was removed; clients that call it get an unknown-tool error`}
	narrowed := diff.Change{Rule: "input-enum-value-removed", Level: diff.Breaking, Direction: diff.Input, Tool: "search_documents",
		Path: "/properties/sort/enum", Old: json.RawMessage(`["date","relevance"]`), New: json.RawMessage(`["relevance"]`),
		Witness: json.RawMessage(`{"query":"a","sort":"date"}`), Message: `"date" is no longer accepted`}
	refused := admin.ReloadResult{Trigger: "watch", Result: admin.ResultRefused, At: at(20), DurationMs: 12.5, Version: 3, Fingerprint: fpA,
		Candidate: fpB, Reason: "the gate refused a breaking change",
		Findings: []admin.Finding{{Change: removed, NeedsPermission: true}, {Change: narrowed, AllowedBy: "mcpctl.serve.yaml:31"}}}
	invalid := admin.ReloadResult{Trigger: "SIGHUP", Result: admin.ResultRefused, At: at(10), Version: 3, Fingerprint: fpA,
		Reason: "the candidate could not be built", Errors: []string{"mcpctl.serve.yaml:7:5: tool \"search_documents\": /inputSchema/type: got strin, want a JSON Schema type"}}
	return map[string]*admin.Status{
		"started": {Config: "/srv/mcpctl.serve.yaml", Version: 1, Fingerprint: fpA, PublishedAt: at(0), Tools: []string{"fetch_document", "search_documents"},
			Ready: true, LastReload: &admin.ReloadResult{Trigger: "start", Result: admin.ResultPublished, At: at(0), Version: 1, Fingerprint: fpA, Changed: true},
			Refused: []admin.ReloadResult{}, Sessions: admin.SessionStatus{ByGeneration: map[string]int{}},
			Calls: map[string]admin.CallCounts{}, Facades: map[string]map[string]int64{}, Pending: []state.Pending{}},
		"busy": {Config: "/srv/mcpctl.serve.yaml", Version: 3, Fingerprint: fpA, PublishedAt: at(5), Tools: []string{"fetch_document", "search_documents"},
			AllowBreaking: true, LastReload: &refused, Refused: []admin.ReloadResult{invalid, refused},
			Sessions: admin.SessionStatus{Total: 4, Initialized: 3, ByGeneration: map[string]int{"0": 1, "2": 1, "3": 2}, Pinned: map[string]int{"2": 1},
				HTTPOpen: 3, Max: 100, Refused: 2, IdleTimeout: "1800s"},
			Calls:    map[string]admin.CallCounts{"search_documents": {OK: 120, Error: 2, Invalid: 7}, "fetch_document": {OK: 31}},
			Facades:  map[string]map[string]int64{"search_documents": {"rename": 5, "defaults": 2}},
			InFlight: 2, MaxInFlight: 1024, RefusedAtMax: 3,
			Pending: []state.Pending{{Fingerprint: fpB, Time: at(20), Against: fpA, Findings: []diff.Change{removed}}},
			Upstreams: []upstream.Status{{Name: "files", State: "quarantined", Tools: 14, Served: 4},
				{Name: "tickets", State: upstream.StateRestarting, Restarts: 2, Tools: 3, Served: 3, LastError: "the server closed the connection"}},
			Rollout: &admin.RolloutStatus{NewSessions: "green", StartedAt: at(5), RetireAt: at(65), Blue: "alive", BlueFingerprint: fpB,
				Sessions: map[string]int{"blue": 1, "green": 3}, Calls: map[string]int64{"blue": 7, "green": 40}}},
	}
}

// TestStatusGolden pins the text of `mcpctl status --admin ADDR` and the
// /status document it prints with --format json (admin.Encode, the
// server's encoding), for a server just started and a busy one.
func TestStatusGolden(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 7, 1, 13, 0, 0, 0, time.UTC)
	for name, st := range statuses() {
		var b bytes.Buffer
		if err := StatusText(&b, st, now); err != nil {
			t.Fatal(err)
		}
		golden(t, "status-"+name+".txt", b.Bytes())
		b.Reset()
		if err := admin.Encode(&b, st); err != nil {
			t.Fatal(err)
		}
		golden(t, "status-"+name+".json", b.Bytes())
	}
}

// statusText renders st at its publish time.
func statusText(t *testing.T, st *admin.Status) string {
	t.Helper()
	var b strings.Builder
	if err := StatusText(&b, st, st.PublishedAt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestStatusTextPinned(t *testing.T) {
	t.Parallel()
	st := &admin.Status{Sessions: admin.SessionStatus{
		Total: 3, Initialized: 3,
		ByGeneration: map[string]int{"1": 2, "2": 1},
		Pinned:       map[string]int{"1": 2},
	}}
	text := statusText(t, st)
	for _, want := range []string{
		"sessions: 3 (3 initialized); generation 1: 2, generation 2: 1\n",
		"  pinned: 2 (generation 1: 2)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("status output lacks %q:\n%s", want, text)
		}
	}
	st.Sessions.Pinned = nil
	if text := statusText(t, st); strings.Contains(text, "pinned") {
		t.Errorf("status without pins mentions pinned:\n%s", text)
	}
}

func TestStatusTextSessionCap(t *testing.T) {
	t.Parallel()
	st := &admin.Status{Sessions: admin.SessionStatus{HTTPOpen: 2, Max: 10, Refused: 3, IdleTimeout: "1800s"}}
	want := "  http: 2 of at most 10 open, closed after 1800s idle; 3 refused at the cap\n"
	if text := statusText(t, st); !strings.Contains(text, want) {
		t.Errorf("status output lacks %q:\n%s", want, text)
	}
}

func TestStatusTextUpstreams(t *testing.T) {
	t.Parallel()
	st := &admin.Status{Upstreams: []upstream.Status{
		{Name: "files", State: "quarantined", Tools: 14, Served: 4, Restarts: 0},
		{Name: "tickets", State: upstream.StateRestarting, Tools: 3, Served: 3, Restarts: 2, LastError: "the server closed the connection"},
	}}
	want := "\nupstreams:\n  files  quarantined  lists 14 tools, 4 served  0 restarts\n  tickets  restarting  lists 3 tools, 3 served  2 restarts  last error: the server closed the connection\n"
	if text := statusText(t, st); !strings.Contains(text, want) {
		t.Errorf("status output lacks %q:\n%s", want, text)
	}
}

func TestStatusTextQuarantinedReload(t *testing.T) {
	t.Parallel()
	st := &admin.Status{LastReload: &admin.ReloadResult{Trigger: "upstream:files", Result: admin.ResultQuarantined, Version: 3, Fingerprint: "abcdef0123456789", Candidate: "fedcba", Quarantined: []string{"files"}}}
	text := statusText(t, st)
	for _, w := range []string{"last reload: quarantined (upstream:files)", "    upstream(s) files quarantined; serving generation 3 (abcdef012345)\n", "    pending: fedcba (mcpctl approve or reject)\n"} {
		if !strings.Contains(text, w) {
			t.Errorf("status output lacks %q:\n%s", w, text)
		}
	}
}

func TestStatusTextRollout(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		blue, want string
	}{
		{"alive", "\nblue/green: blue alive, new sessions get green, blue retires at 2026-01-15T12:30:00Z (in 30m0s)\n  blue   2 sessions  7 calls\n  green  5 sessions  40 calls\n"},
		{"stopped", "\nblue/green: blue stopped, new sessions get green\n  blue   2 sessions  7 calls\n"},
	} {
		st := &admin.Status{Rollout: &admin.RolloutStatus{NewSessions: "green", Blue: tc.blue, RetireAt: now.Add(30 * time.Minute),
			Sessions: map[string]int{"blue": 2, "green": 5}, Calls: map[string]int64{"blue": 7, "green": 40}}}
		var b strings.Builder
		if err := StatusText(&b, st, now); err != nil || !strings.Contains(b.String(), tc.want) {
			t.Errorf("status output lacks %q (%v):\n%s", tc.want, err, b.String())
		}
	}
	if text := statusText(t, &admin.Status{}); strings.Contains(text, "blue/green") {
		t.Errorf("status without a rollout mentions one:\n%s", text)
	}
}

// TestStatusContractClosed: status-output.schema.json refuses a member it
// does not list, at the top, in a finding of a reload, in a pending
// candidate and its finding, and in the rollout, so a member added to admin.Status without the
// schema fails TestOutputContracts.
func TestStatusContractClosed(t *testing.T) {
	t.Parallel()
	sc := compileFile(t, filepath.Join("..", "docs", "schema", "status-output.schema.json"))
	var b bytes.Buffer
	if err := admin.Encode(&b, statuses()["busy"]); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, at string }{
		{"top", `"config": `},
		{"reload finding", `"needsPermission": true`},
		{"pending candidate", `"fingerprint": "b7e2d1c0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2",` + "\n      \"time\""},
		{"pending finding", `"rule": "tool-removed",` + "\n          \"level\""},
		{"rollout", `"blueFingerprint": `},
	} {
		doc := strings.Replace(b.String(), tc.at, `"extra": 1, `+tc.at, 1)
		if doc == b.String() {
			t.Fatalf("%s: %q not in the document", tc.name, tc.at)
		}
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if sc.Validate(v) == nil {
			t.Errorf("status-output.schema.json accepts an unknown member (%s)", tc.name)
		}
	}
}
