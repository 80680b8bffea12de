package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpctl/mcpctl/report"
	"github.com/mcpctl/mcpctl/serve"
)

// runCLIb runs mcpctl in-process with empty stdin and returns the exit code,
// stdout and stderr.
func runCLIb(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return code, out.String(), errOut.String()
}

// TestIssue10Item14StatusAtMCPPort: `mcpctl status --admin` given the MCP
// (--http) address said "usage: 127.0.0.1:8931/status answered 405…". It
// now says which listener it reached and what to give instead.
func TestIssue10Item14StatusAtMCPPort(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcpctl.serve.yaml")
	if err := os.WriteFile(path, []byte("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(context.Background(), serve.Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	mcpListener := httptest.NewServer(srv.HTTPMux(serve.HTTPOptions{Stateless: true}))
	defer mcpListener.Close()
	addr := strings.TrimPrefix(mcpListener.URL, "http://")

	code, _, stderr := runCLIb(t, "status", "--admin", addr)
	if code != ExitInput || strings.Contains(stderr, "usage:") || !strings.Contains(stderr, "MCP endpoint (serve --http), not the admin listener;") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the MCP listener, without \"usage:\"", code, stderr)
	}
}

// TestIssue10Item13FlagValueCompletion: `mcpctl __complete` offered no
// values for lint --profile, most --format flags, replay --fail-on, serve
// --log-level/--log-format and fixtures convert --to. Every flag with a
// fixed set of values now completes them, and nothing else (no files).
func TestIssue10Item13FlagValueCompletion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lint", "--profile", ""}, "default\nstrict\n"},
		{[]string{"lint", "--format", ""}, "text\njson\n"},
		{[]string{"canon", "--format", ""}, "text\njson\n"},
		{[]string{"status", "--format", ""}, "text\njson\n"},
		{[]string{"replay", "--format", ""}, strings.Join(report.ReplayFormats(), "\n") + "\n"},
		{[]string{"replay", "--fail-on", ""}, "rejected\ntranslated\nnever\n"},
		{[]string{"serve", "--log-level", ""}, "debug\ninfo\nwarn\nerror\n"},
		{[]string{"serve", "--log-format", ""}, "auto\ntext\njson\n"},
		{[]string{"fixtures", "convert", "--to", ""}, "jsonl\n"},
		{[]string{"diff", "--color", ""}, "auto\nalways\nnever\n"},
	} {
		code, out, _ := runCLIb(t, append([]string{"__complete"}, tc.args...)...)
		if code != ExitOK || out != tc.want+":4\n" {
			t.Errorf("complete %q: exit %d, got %q, want %q", tc.args, code, out, tc.want+":4\n")
		}
	}
}

// TestIssue10Item13ColorFlag: colour was decided by the terminal and
// NO_COLOR alone; --color auto|always|never decides first, then NO_COLOR,
// then FORCE_COLOR / CLICOLOR_FORCE (a non-empty value other than "0").
func TestIssue10Item13ColorFlag(t *testing.T) {
	// not parallel: sets NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE
	for _, tc := range []struct {
		flag, noColor, force, cliForce string
		want                           bool
	}{
		{"auto", "", "", "", false}, // a buffer is not a terminal
		{"always", "1", "", "", true},
		{"never", "", "1", "1", false},
		{"auto", "", "1", "", true},
		{"auto", "", "0", "", false},
		{"auto", "", "", "1", true},
		{"auto", "1", "1", "", false},
	} {
		t.Setenv("NO_COLOR", tc.noColor)
		t.Setenv("FORCE_COLOR", tc.force)
		t.Setenv("CLICOLOR_FORCE", tc.cliForce)
		code, out, errOut := runCLIb(t, "rules", "--color", tc.flag)
		if code != ExitOK {
			t.Fatalf("%+v: exit %d: %s", tc, code, errOut)
		}
		if got := strings.Contains(out, "\x1b["); got != tc.want {
			t.Errorf("%+v: styled %v, want %v", tc, got, tc.want)
		}
	}
	if code, _, errOut := runCLIb(t, "rules", "--color", "sometimes"); code != ExitInput || !strings.Contains(errOut, `invalid argument "sometimes" for "--color" flag: must be auto, always, never`) {
		t.Errorf("--color sometimes: exit %d, %s", code, errOut)
	}
}

// TestIssue10Item13CanonStdinOnTerminal: `mcpctl canon` with no argument on
// a terminal waited silently for standard input; it now says so on stderr
// before reading.
func TestIssue10Item13CanonStdinOnTerminal(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	s := &Streams{In: strings.NewReader(`{"tools":[]}`), Out: &out, ErrOut: &errOut, inTerminal: func() bool { return true }}
	if code := run(context.Background(), []string{"canon"}, s); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if want := "mcpctl: reading the tool set from standard input (end with Ctrl-D; mcpctl canon --help for sources)\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	errOut.Reset()
	s.In, s.inTerminal = strings.NewReader(`{"tools":[]}`), nil
	if code := run(context.Background(), []string{"canon"}, s); code != ExitOK || errOut.Len() != 0 {
		t.Errorf("piped stdin: exit %d, stderr %q, want silence", code, errOut.String())
	}
}

// TestIssue10OTelExportOnlyWhenEndpointSet: serve sends its spans over
// OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (here a loopback collector) and
// flushes them on exit; without the variable nothing is sent.
func TestIssue10OTelExportOnlyWhenEndpointSet(t *testing.T) {
	// not parallel: sets OTEL_EXPORTER_OTLP_ENDPOINT
	var mu sync.Mutex
	posts := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts[r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")]++
		mu.Unlock()
		if len(body) == 0 {
			t.Errorf("empty OTLP request")
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcpctl.serve.yaml")
	os.WriteFile(config, []byte("tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n"), 0o644)
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{}}}
`
	serveOnce := func() {
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"serve", "--no-watch", config}, &Streams{In: strings.NewReader(session), Out: &out, ErrOut: &errOut})
		if code != ExitOK || !strings.Contains(out.String(), `"id":2`) {
			t.Fatalf("serve: exit %d, stdout %s, stderr %s", code, out.String(), errOut.String())
		}
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	serveOnce()
	if len(posts) != 0 {
		t.Errorf("traces sent without OTEL_EXPORTER_OTLP_ENDPOINT: %v", posts)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	serveOnce()
	mu.Lock()
	defer mu.Unlock()
	if posts["POST /v1/traces application/x-protobuf"] == 0 {
		t.Errorf("no OTLP/HTTP trace export reached the collector: %v", posts)
	}
}

// TestIssue10Item13EveryEnumFlagCompletes walks the command tree: every
// flag whose value is one of a fixed set (by name) completes its values, so
// a new command's --format cannot be forgotten.
func TestIssue10Item13EveryEnumFlagCompletes(t *testing.T) {
	t.Parallel()
	enum := map[string]bool{"format": true, "fail-on": true, "profile": true, "log-level": true, "log-format": true, "to": true, "color": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := c.GetFlagCompletionFunc(f.Name); enum[f.Name] && !ok {
				t.Errorf("%s --%s has no value completion", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&Streams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}))
}

// TestIssue10Item13DiffValuesFitColumns: diff's text cut old/new values at
// 160 characters whatever the terminal; they now fit $COLUMNS (or the
// terminal's width).
func TestIssue10Item13DiffValuesFitColumns(t *testing.T) {
	// not parallel: sets COLUMNS
	dir := t.TempDir()
	long := strings.Repeat("word ", 80)
	for name, desc := range map[string]string{"old.json": long, "new.json": long + "more"} {
		doc := `{"tools":[{"name":"a","description":"` + desc + `","inputSchema":{"type":"object"}}]}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cols := range []int{100, 200} {
		t.Setenv("COLUMNS", fmt.Sprint(cols))
		code, out, errOut := runCLIb(t, "diff", filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json"))
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "old:") || strings.Contains(line, "new:") {
				n++
				if w := len([]rune(line)); w != cols {
					t.Errorf("COLUMNS=%d: a %d-column line: %q", cols, w, line)
				}
			}
		}
		if n != 2 {
			t.Errorf("COLUMNS=%d: %d old/new lines, want 2:\n%s", cols, n, out)
		}
	}
}
