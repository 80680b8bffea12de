package cmd

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// result is what one in-process mcpctl run produced.
type result struct {
	code        int
	out, errOut string
}

// mcpctl runs the CLI in-process with args and an empty standard input.
func mcpctl(t *testing.T, args ...string) result {
	t.Helper()
	return mcpctlCtx(context.Background(), t, args...)
}

func mcpctlCtx(ctx context.Context, t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(ctx, args, &Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	return result{code, out.String(), errOut.String()}
}

// writeTemp writes content to name in a fresh temporary folder and returns
// its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIssue10Item9CheckSnapshotLockfile: `canon --check` failed on every
// lockfile `snapshot` writes (indented, members in the server's order by
// design). `snapshot --canonical` writes the canonical form, which --check
// accepts; --check on a plain lockfile says how to get one.
func TestIssue10Item9CheckSnapshotLockfile(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "in.json", `{"tools":[{"name":"zeta","inputSchema":{"type":"object","properties":{"b":{},"a":{}}}},{"name":"alpha","inputSchema":{"type":"object"}}]}`)
	dir := t.TempDir()
	lock := filepath.Join(dir, "canonical.lock.json")
	if r := mcpctl(t, "snapshot", "--canonical", "-o", lock, in); r.code != ExitOK {
		t.Fatalf("snapshot --canonical: exit %d: %s", r.code, r.errOut)
	}
	if r := mcpctl(t, "canon", "--check", lock); r.code != ExitOK {
		t.Errorf("canon --check on snapshot --canonical output: exit %d: %s", r.code, r.errOut)
	}
	plain := filepath.Join(dir, "tools.lock.json")
	if r := mcpctl(t, "snapshot", "-o", plain, in); r.code != ExitOK {
		t.Fatalf("snapshot: exit %d: %s", r.code, r.errOut)
	}
	r := mcpctl(t, "canon", "--check", plain)
	if r.code != ExitFindings || !strings.Contains(r.errOut, "snapshot --canonical") {
		t.Errorf("canon --check on a plain lockfile: exit %d, want 1 and a hint naming snapshot --canonical:\n%s", r.code, r.errOut)
	}
}

// TestIssue10Item5EnvironmentExitCodes: ordinary environment errors exited
// 3 ("a bug in mcpctl"): `snapshot -o` into a missing folder (whose message
// also leaked the temporary file's name) and `serve --http` on a port
// already in use. Each now exits ExitEnvironment, and `help exit-codes`
// documents every code.
func TestIssue10Item5EnvironmentExitCodes(t *testing.T) {
	t.Parallel()
	in := writeTemp(t, "in.json", `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	cfg := writeTemp(t, "mcpctl.serve.yaml", "tools:\n  - name: a\n    inputSchema: {type: object}\n    handler: {static: {text: x}}\n")
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	missing := filepath.Join(t.TempDir(), "no-such-folder", "tools.lock.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"output in a missing folder", []string{"snapshot", "-o", missing, in}, "no-such-folder"},
		{"port in use", []string{"serve", "--no-watch", "--log-format", "json", "--http", busy.Addr().String(), cfg}, "address already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mcpctl(t, tc.args...)
			if r.code != ExitEnvironment {
				t.Errorf("exit %d, want %d (environment):\n%s", r.code, ExitEnvironment, r.errOut)
			}
			if !strings.Contains(r.errOut, tc.want) || strings.Contains(r.errOut, ".tmp") {
				t.Errorf("stderr lacks %q or names a temporary file:\n%s", tc.want, r.errOut)
			}
		})
	}
	help := mcpctl(t, "help", "exit-codes").out
	for _, code := range []int{ExitOK, ExitFindings, ExitInput, ExitInternal, ExitEnvironment} {
		if !strings.Contains(help, fmt.Sprintf("\n  %d  ", code)) {
			t.Errorf("help exit-codes does not document %d:\n%s", code, help)
		}
	}
}

// TestIssue10Item4StatusLine: while a live source is read, a terminal shows
// one status line on stderr, rewritten in place and cleared before a
// warning or the server's stderr is written; off a terminal nothing but
// the warning is written.
func TestIssue10Item4StatusLine(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	l := &statusLine{w: &b, on: true}
	l.progress("old")("starting ./server …")
	l.progress("new")("listing tools, page 3")
	l.warn("stdio:./server: skipped a line")
	_, _ = l.writer(&b).Write([]byte("server log\n"))
	l.progress("")("waiting for initialize …")
	l.clear()
	want := "\r\x1b[Kmcpctl: old: starting ./server …" +
		"\r\x1b[Kmcpctl: new: listing tools, page 3" +
		"\r\x1b[Kmcpctl: warning: stdio:./server: skipped a line\n" +
		"server log\n" +
		"\r\x1b[Kmcpctl: waiting for initialize …" +
		"\r\x1b[K"
	if b.String() != want {
		t.Errorf("terminal output = %q, want %q", b.String(), want)
	}
	b.Reset()
	off := &statusLine{w: &b}
	if off.progress("old") != nil {
		t.Error("off a terminal, progress is not nil")
	}
	off.warn("w")
	off.clear()
	if b.String() != "mcpctl: warning: w\n" {
		t.Errorf("non-terminal output = %q", b.String())
	}
}

// TestIssue10Item10GitHubAnnotationsLocated: --format github annotations
// carried no file= or line=, so they never appeared inline on a pull
// request. They now point at the NEW file and the line where the tool
// starts (the file alone for a tool NEW no longer has); a NEW that is not a
// file (standard input) gets no location.
func TestIssue10Item10GitHubAnnotationsLocated(t *testing.T) {
	t.Parallel()
	old := writeTemp(t, "old.json", `{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},{"name":"gone","inputSchema":{"type":"object"}}]}`)
	newText := "{\n  \"tools\": [\n    {\n      \"name\": \"b\",\n      \"inputSchema\": {\"type\": \"object\"}\n    },\n    {\n      \"name\": \"a\",\n      \"inputSchema\": {\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"integer\"}}}\n    }\n  ]\n}\n"
	newPath := writeTemp(t, "new.json", newText)
	r := mcpctl(t, "diff", "--format", "github", old, newPath)
	if r.code != ExitFindings {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	prop := ghProp(newPath)
	for _, want := range []string{
		"::error file=" + prop + ",line=7,title=a /properties/q/type::",
		"::error file=" + prop + ",title=gone::",
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"diff", "--format", "github", old, "-"}, &Streams{In: strings.NewReader(newText), Out: &out, ErrOut: &errOut})
	if code != ExitFindings || strings.Contains(out.String(), "file=") {
		t.Errorf("NEW from standard input: exit %d, annotations with a file:\n%s%s", code, out.String(), errOut.String())
	}
}

// ghProp escapes a workflow command property as @actions/core does.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
