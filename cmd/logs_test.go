package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/canon"
	"github.com/mcpctl/mcpctl/serve"
)

const (
	logConfigAB = "tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n  - name: b\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"
	logConfigA  = "tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"
	logAllowB   = "gate:\n  allow:\n    - {rule: tool-removed, tool: b, reason: retired}\n"
)

// TestIssue10Item1NoDuplicateLogKeys runs a reload scenario (publish, a
// refusal, a publish a gate.allow entry allows, shutdown) with serve's JSON
// logger and checks every line: one JSON object with no duplicate keys
// (issue 10, item 1: slog's "level" and the gate's "level" were both on
// each reload line), durations as strings ("10s", not 10000000000) and no
// empty path=.
func TestIssue10Item1NoDuplicateLogKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcpctl.serve.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	log, err := newLogger(&logs, "json", "debug")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	write(logConfigAB)
	srv, err := serve.New(ctx, serve.Options{ConfigPath: path, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	write(logConfigA) // b removed: refused
	if res := srv.Reload(ctx, "test"); res.Result != serve.ResultRefused {
		t.Fatalf("reload without b: %s", res.Result)
	}
	write(logConfigA + logAllowB) // allowed
	if res := srv.Reload(ctx, "test"); res.Result != serve.ResultPublished {
		t.Fatalf("reload with gate.allow: %s", res.Result)
	}
	if err := srv.Run(ctx, serve.RunOptions{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, ShutdownTimeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	checkLogLines(t, logs.String(), []string{`"msg":"reload refused by the gate`, `"msg":"published"`, `"timeout":"10s"`})
}

// emptyPath finds a "path=" with no value in a log line.
var emptyPath = regexp.MustCompile(`path=(\s|"|,|\]|$)`)

// checkLogLines requires every line to be a JSON object that canon's strict
// parser accepts (it rejects duplicate member names), with "level" once, no
// number under a duration key, no empty path=, and each of want somewhere.
func checkLogLines(t *testing.T, text string, want []string) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		v, err := canon.Parse([]byte(line))
		if err != nil {
			t.Errorf("log line %d: %v\n%s", i+1, err, line)
			continue
		}
		if v.Kind != canon.Object || v.Get("level") == nil {
			t.Errorf("log line %d is not an object with a level:\n%s", i+1, line)
		}
		for _, k := range []string{"timeout", "debounce", "ttl", "elapsed"} {
			if d := v.Get(k); d != nil && d.Kind != canon.String {
				t.Errorf("log line %d: %q is a %s, want a duration string:\n%s", i+1, k, d.Kind, line)
			}
		}
		if emptyPath.MatchString(line) {
			t.Errorf("log line %d has an empty path=:\n%s", i+1, line)
		}
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("logs lack %s:\n%s", w, text)
		}
	}
}

// TestIssue10Item1StartupRefusalOnce: a config refused at startup was
// printed twice, as a log record and as the command's error.
func TestIssue10Item1StartupRefusalOnce(t *testing.T) {
	t.Parallel()
	cfg := writeTemp(t, "bad.yaml", "tools:\n  - name: a\n    inputSchema: {type: objec}\n    handler: {static: {text: x}}\n")
	r := mcpctl(t, "serve", "--no-watch", "--log-format", "json", cfg)
	if r.code != ExitInput {
		t.Fatalf("exit %d, want %d:\n%s", r.code, ExitInput, r.errOut)
	}
	if n := strings.Count(r.errOut, "input-schema-not-object"); n != 1 {
		t.Errorf("the refusal is printed %d times, want once:\n%s", n, r.errOut)
	}
}
