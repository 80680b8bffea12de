package serve

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpctl/mcpctl/diff"
	"github.com/mcpctl/mcpctl/internal/clock/clocktest"
	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// TestIssue10Item6GateAllowExpires: gate.allow took until: while
// .mcpctl.yaml ignores take expires:, each rejecting the other's name.
// gate.allow now takes expires: (the first day it no longer covers, as for
// ignores), accepts until: (through that day) with a located deprecation
// warning, refuses both at once, and takes path: like ignores.
func TestIssue10Item6GateAllowExpires(t *testing.T) {
	t.Parallel()
	parse := func(entry string) (*serveconfig.Config, error) {
		return serveconfig.ParseConfig("c.yaml", []byte("tools: []\ngate:\n  allow:\n    - "+entry+"\n"), nil)
	}
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	type got struct {
		Expires  time.Time
		Path     string
		Warnings []string
	}
	for _, tc := range []struct {
		entry string
		want  got
	}{
		{"{tool: a, reason: r, expires: 2027-01-31}", got{Expires: day("2027-01-31")}},
		{"{tool: a, reason: r, until: 2027-01-31}", got{Expires: day("2027-02-01"), Warnings: []string{
			"c.yaml:4:28: gate.allow: until is deprecated; write expires: 2027-02-01 (the first day the entry no longer covers)"}}},
		{"{tool: a, reason: r, path: /properties/q}", got{Path: "/properties/q"}},
	} {
		cfg, err := parse(tc.entry)
		if err != nil {
			t.Errorf("%s: %v", tc.entry, err)
			continue
		}
		e := cfg.Gate.Allow[0]
		if d := cmp.Diff(tc.want, got{e.Expires, e.Path, cfg.Warnings}); d != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.entry, d)
		}
	}
	for entry, want := range map[string]string{
		"{tool: a, reason: r, until: 2027-01-31, expires: 2027-02-01}": "give expires only",
		"{tool: a, reason: r, path: properties/q}":                     "not a JSON Pointer",
	} {
		_, err := parse(entry)
		if !errors.Is(err, toolset.ErrInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an input error saying %q", entry, err, want)
		}
	}
}

// TestIssue10Item6AllowPath: a gate.allow entry with a path covers the
// findings at that JSON Pointer and below, and only those.
func TestIssue10Item6AllowPath(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	at := func(p string) diff.Change {
		return diff.Change{Rule: "input-property-removed", Level: diff.Breaking, Tool: "search", Path: p}
	}
	allow := []serveconfig.AllowEntry{{Tool: "search", Path: "/properties/q", Reason: "r", Pos: serveconfig.Pos{File: "c.yaml", Line: 3, Col: 7}}}
	d := decide(&diff.Report{Changes: []diff.Change{at("/properties/q"), at("/properties/q/enum"), at("/properties/qq")}}, allow, false, now)
	var blocking []string
	for _, f := range d.Blocking {
		blocking = append(blocking, f.Path)
	}
	if d := cmp.Diff([]string{"/properties/qq"}, blocking); d != "" {
		t.Errorf("blocking paths mismatch (-want +got):\n%s", d)
	}
}

// TestIssue10Item6ExpiredAllowInRefusal: a refusal caused by an expired
// gate.allow entry says so, in the error and in the log line.
func TestIssue10Item6ExpiredAllowInRefusal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const a = "  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"
	const b = "  - name: b\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"
	write("tools:\n" + a + b)
	var logs strings.Builder
	srv, err := New(context.Background(), Options{ConfigPath: path, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Clock: clocktest.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	write("tools:\n" + a + "gate:\n  allow:\n    - {rule: tool-removed, tool: b, reason: retired, expires: 2026-05-01}\n")
	res := srv.Reload(context.Background(), "test")
	if res.Result != ResultRefused {
		t.Fatalf("reload: %s", res.Result)
	}
	if err := res.Err(); err == nil || !strings.Contains(err.Error(), "expired on 2026-05-01") {
		t.Errorf("refusal does not say the entry expired: %v", err)
	}
	if !strings.Contains(logs.String(), "expired on 2026-05-01") {
		t.Errorf("refusal log does not say the entry expired:\n%s", logs.String())
	}
}

// TestIssue10Item7ExecEnvNamesOnly: exec.env: [A=b] was silently ignored
// (only variable names are copied from the server's environment). A value
// is now a located error saying only names are allowed.
func TestIssue10Item7ExecEnvNamesOnly(t *testing.T) {
	t.Parallel()
	cfg := "tools:\n  - name: a\n    inputSchema: {type: object}\n    handler:\n      exec:\n        command: [./run]\n        env: [HOME, A=b]\n"
	_, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
	var ie *toolset.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an *toolset.InputError", err)
	}
	want := `c.yaml:7:21: tool "a": /tools/0/handler/exec/env/1: env lists names of variables copied from mcpctl's environment; "A=b" sets a value, which is not allowed (set A in the environment mcpctl runs in)`
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	if _, err := serveconfig.ParseConfig("c.yaml", []byte(strings.Replace(cfg, ", A=b", "", 1)), nil); err != nil {
		t.Errorf("names only: %v", err)
	}
}
