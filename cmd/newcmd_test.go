package cmd

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// parseOpts runs the command build makes with args, intercepting its run
// function: it returns the options the flags and arguments filled, or the
// error of cobra's parsing or the command's own usage checks.
func parseOpts[O any](t *testing.T, build func(*Streams, func(*O) error) *cobra.Command, args ...string) (O, error) {
	t.Helper()
	var got O
	ran := false
	s := &Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	c := build(s, func(o *O) error { got, ran = *o, true; return nil })
	c.SetArgs(args)
	c.SetOut(io.Discard)
	c.SetErr(io.Discard)
	c.SilenceUsage, c.SilenceErrors = true, true
	typeUsageErrors(c) // as newRootCmd does for every command
	err := c.Execute()
	if err == nil && !ran {
		t.Fatalf("%q: the run function was not called", args)
	}
	return got, err
}

func wantOpts[O any](t *testing.T, build func(*Streams, func(*O) error) *cobra.Command, want O, args ...string) {
	t.Helper()
	got, err := parseOpts(t, build, args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(liveFlags{})); d != "" {
		t.Errorf("%q: mismatch (-want +got):\n%s", args, d)
	}
}

func wantUsage[O any](t *testing.T, build func(*Streams, func(*O) error) *cobra.Command, args ...string) {
	t.Helper()
	if _, err := parseOpts(t, build, args...); !errors.Is(err, ErrUsage) {
		t.Errorf("%q: error %v, want a usage error", args, err)
	}
}

// TestNewCmdFlags: every command fills its options from flags and
// arguments, and refuses bad usage, before anything runs (gh's
// NewCmdX(streams, runF) seam).
func TestNewCmdFlags(t *testing.T) {
	t.Parallel()
	live := liveFlags{Timeout: 10 * time.Second}
	t.Run("canon", func(t *testing.T) {
		wantOpts(t, NewCmdCanon, canonOptions{Source: "a.json", Fingerprint: true, Format: "json", Live: live}, "--fingerprint", "--format", "json", "a.json", "--timeout", "10s")
		wantOpts(t, NewCmdCanon, canonOptions{Source: "-", Check: true, Normalize: true, Format: "text", Live: live}, "--check", "--normalize", "--timeout=10s")
		wantUsage(t, NewCmdCanon, "--check", "--fingerprint")
		wantUsage(t, NewCmdCanon, "--format", "yaml")
	})
	t.Run("diff", func(t *testing.T) {
		got, err := parseOpts(t, NewCmdDiff, "--fail-on", "facade", "--format", "json", "--verify", "0", "--compatibility", "full", "--usage", "calls.jsonl", "--fail-on-used-only", "old.json", "new.json")
		if err != nil {
			t.Fatal(err)
		}
		if got.Old != "old.json" || got.New != "new.json" || got.FailOn != "facade" || got.Format != "json" || got.Verify != 0 ||
			got.Compatibility != "full" || got.Usage != "calls.jsonl" || !got.UsedOnly {
			t.Errorf("diff options = %+v", got)
		}
		wantUsage(t, NewCmdDiff, "only-one.json")
	})
	t.Run("lint", func(t *testing.T) {
		wantOpts(t, NewCmdLint, lintOptions{Source: "t.json", Profile: "strict", Format: "json", Config: "c.yaml", Live: live}, "--profile", "strict", "--format", "json", "--config", "c.yaml", "--timeout", "10s", "t.json")
		wantUsage(t, NewCmdLint, "--profile", "lax", "t.json")
		wantUsage(t, NewCmdLint, "--format", "sarif", "t.json")
	})
	t.Run("replay", func(t *testing.T) {
		got, err := parseOpts(t, NewCmdReplay, "calls.jsonl", "--against", "v2.json", "--facades", "f.yaml", "--fail-on", "translated", "--format", "json", "--live", "stdio:srv", "--yes")
		if err != nil {
			t.Fatal(err)
		}
		want := replayOptions{Fixtures: "calls.jsonl", Against: "v2.json", Facades: "f.yaml", FailOn: "translated", Format: "json", Live: "stdio:srv", Yes: true}
		got.Conn = liveFlags{}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(liveFlags{})); d != "" {
			t.Errorf("mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("rules", func(t *testing.T) {
		wantOpts(t, NewCmdRules, rulesOptions{Format: "json"}, "--format", "json")
		wantUsage(t, NewCmdRules, "extra")
	})
	t.Run("serve", func(t *testing.T) {
		got, err := parseOpts(t, NewCmdServe, "cfg.yaml", "--http", ":0", "--allow-origin", "https://a.example", "--pin-sessions", "--state", "st")
		if err != nil {
			t.Fatal(err)
		}
		if got.Config != "cfg.yaml" || got.HTTP != ":0" || !got.PinSessions || got.State != "st" || !cmp.Equal(got.AllowOrigins, []string{"https://a.example"}) {
			t.Errorf("serve options = %+v", got)
		}
		wantUsage(t, NewCmdServe)
		wantUsage(t, NewCmdServe, "a.yaml", "--config", "b.yaml")
		wantUsage(t, NewCmdServe, "a.yaml", "--stateless")
	})
	t.Run("snapshot", func(t *testing.T) {
		wantOpts(t, NewCmdSnapshot, snapshotOptions{Source: "stdio:srv", Output: "t.lock.json", Canonical: true, Live: live}, "-o", "t.lock.json", "--canonical", "--timeout", "10s", "stdio:srv")
		wantOpts(t, NewCmdSnapshot, snapshotOptions{Command: []string{"node", "srv.js"}, Live: live}, "--timeout", "10s", "--", "node", "srv.js")
		wantOpts(t, NewCmdSnapshot, snapshotOptions{ClientConfig: "mcp.json", Output: "locks", Live: live}, "--client-config", "mcp.json", "-o", "locks", "--timeout", "10s")
		wantUsage(t, NewCmdSnapshot, "--client-config", "mcp.json")
		wantUsage(t, NewCmdSnapshot, "a", "b")
	})
	t.Run("status", func(t *testing.T) {
		wantOpts(t, NewCmdStatus, statusOptions{Admin: "8932", Admins: []string{"8932"}, Format: "json", Timeout: 3 * time.Second}, "--admin", "8932", "--format", "json", "--timeout", "3s")
		wantOpts(t, NewCmdStatus, statusOptions{Admins: []string{"1", "2", "3"}, Format: "text", Timeout: 10 * time.Second}, "--admin", "1,2", "--admin", "3")
		wantUsage(t, NewCmdStatus)
	})
	t.Run("fixtures convert", func(t *testing.T) {
		wantOpts(t, NewCmdFixturesConvert, convertOptions{Input: "in.json", To: "jsonl", Redact: []string{"token", "/a/b"}}, "--redact", "token,/a/b", "in.json")
		wantUsage(t, NewCmdFixturesConvert, "--to", "csv", "in.json")
	})
	t.Run("approve and reject", func(t *testing.T) {
		got, err := parseOpts(t, NewCmdApprove, "--admin", "8932", "--reason", "announced", "--until", "2030-01-01", "f00d")
		if err != nil {
			t.Fatal(err)
		}
		if !got.Approve || got.Admin != "8932" || got.Decision.Fingerprint != "f00d" || got.Decision.Reason != "announced" || got.Decision.Until == nil {
			t.Errorf("approve options = %+v", got)
		}
		rej, err := parseOpts(t, NewCmdReject, "--admin", "8932", "--reason", "no", "f00d")
		if err != nil || rej.Approve {
			t.Errorf("reject options = %+v, %v", rej, err)
		}
		wantUsage(t, NewCmdApprove, "f00d")
		wantUsage(t, NewCmdReject, "--admin", "8932", "--reason", "no", "--until", "2030-01-01", "f00d")
	})
	t.Run("version", func(t *testing.T) {
		wantOpts(t, NewCmdVersion, versionOptions{})
		wantUsage(t, NewCmdVersion, "extra")
	})
}
