package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// envFunc serves getenv from a map.
func envFunc(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// Issue 8 item 20: a header value with CR/LF (written in the config, or
// brought in by ${NAME}) was accepted when the config was loaded and failed
// only when the tool was called. It is refused at load (a literal) or at
// build (an environment variable), located at the header.
func TestHardening20HeaderCRLFRefusedAtBuild(t *testing.T) {
	t.Parallel()
	cfg := "tools:\n  - name: t\n    inputSchema: {type: object}\n    handler:\n      http:\n        url: http://127.0.0.1:1/\n        headers:\n          X-Ok: fine\n          X-Bad: \"a\\r\\nX-Injected: 1\"\n"
	_, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
	var ie *toolset.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("a header value with CR/LF was accepted: %v", err)
	}
	if ie.Line != 9 || ie.Tool != "t" || ie.Pointer != "/tools/0/handler/http/headers/X-Bad" {
		t.Errorf("error located at line %d tool %q pointer %q, want line 9, tool t, /tools/0/handler/http/headers/X-Bad: %v", ie.Line, ie.Tool, ie.Pointer, err)
	}
	for _, bad := range []string{`"X Bad"`, `"X-Bad:"`, `""`} {
		c := strings.Replace(cfg, `X-Bad: "a\r\nX-Injected: 1"`, bad+": v", 1)
		if _, err := serveconfig.ParseConfig("c.yaml", []byte(c), nil); !errors.As(err, &ie) || ie.Line != 9 {
			t.Errorf("header name %s: %v, want a located error at line 9", bad, err)
		}
	}

	// From the environment: refused when the generation is built.
	cfg = "tools:\n  - name: t\n    inputSchema: {type: object}\n    handler:\n      http:\n        url: http://127.0.0.1:1/\n        headers: {Authorization: \"Bearer ${TOKEN}\"}\n"
	c, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildGeneration(c, buildOptions{getenv: envFunc(map[string]string{"TOKEN": "x\nEvil: 1"})})
	if !errors.As(err, &ie) || ie.Line != 5 || ie.Tool != "t" || !strings.Contains(err.Error(), "Authorization") || !strings.Contains(err.Error(), "TOKEN") {
		t.Errorf("a header value with a line break from the environment: %v, want a located error naming the header and the variable", err)
	}
	if err != nil && strings.Contains(err.Error(), "Evil") {
		t.Errorf("the error shows the variable's value: %v", err)
	}
}

// Issue 8 item 11: the http handler followed a redirect to another host
// and sent it the arguments and the secret headers. A redirect to another
// origin is now an error and the other host sees nothing; a redirect on
// the same origin is still followed.
func TestHardening11NoCrossHostRedirect(t *testing.T) {
	t.Parallel()
	var stolen atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		fmt.Fprint(w, `{"got":"it"}`)
	}))
	defer other.Close()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/here", http.StatusPermanentRedirect)
		case "/here":
			body, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, `{"key":%q,"body":%q}`, r.Header.Get("X-Api-Key"), body)
		}
	}))
	defer backend.Close()
	s, _ := startServer(t, `tools:
  - name: away
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`/away", headers: {X-Api-Key: "${API_KEY}"}}}
  - name: moved
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`/moved", headers: {X-Api-Key: "${API_KEY}"}}}
`, func(o *testOptions) { o.Getenv = envFunc(map[string]string{"API_KEY": "k-secret"}) })
	c := connected(t, s)
	res, _ := callTool(t, c, "away", map[string]any{"a": 1})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "redirect") {
		t.Errorf("redirect to another host: %+v, want an error saying it was not followed", res)
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the other host got %d requests, want 0", n)
	}
	res, _ = callTool(t, c, "moved", map[string]any{"a": 1})
	if res.IsError || res.Content[0].Text != `{"key":"k-secret","body":"{\"a\":1}"}` {
		t.Errorf("redirect on the same origin: %+v, want it followed with the header and the body", res)
	}
}

// Issue 8 item 17: the http handler passed an upstream error body to the
// client; an upstream that echoes request headers in its error page showed
// the client the secret header built from the environment. The body of an
// error response is withheld when the request carried a header built from
// the environment or named like a secret (and passed, shortened, when it
// did not).
func TestHardening17UpstreamErrorDoesNotEchoSecrets(t *testing.T) {
	t.Parallel()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad request; you sent "+fmt.Sprint(r.Header), http.StatusBadRequest)
	}))
	defer backend.Close()
	s, _ := startServer(t, `tools:
  - name: secret
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`", headers: {Authorization: "Bearer ${TOKEN}", X-Plain: visible}}}
  - name: plain
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`", headers: {X-Plain: visible}}}
  - name: literal
    inputSchema: {type: object}
    handler: {http: {url: "`+backend.URL+`", headers: {X-Api-Key: lit-hunter2}}}
`, func(o *testOptions) { o.Getenv = envFunc(map[string]string{"TOKEN": "tok-hunter2"}) })
	c := connected(t, s)
	res, _ := callTool(t, c, "secret", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "400") {
		t.Errorf("upstream error: %+v, want an error with the status", res)
	}
	if strings.Contains(res.Content[0].Text, "hunter2") {
		t.Errorf("the upstream's error body showed the client the secret header: %q", res.Content[0].Text)
	}
	res, _ = callTool(t, c, "literal", map[string]any{})
	if !res.IsError || strings.Contains(res.Content[0].Text, "hunter2") {
		t.Errorf("a secret-named header written in the config was echoed: %q", res.Content[0].Text)
	}
	res, _ = callTool(t, c, "plain", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "bad request; you sent") {
		t.Errorf("upstream error without secret headers: %+v, want its body passed", res)
	}
}

// alive reports whether process pid exists and is not a zombie (Linux
// /proc; a killed process whose parent has not reaped it is dead).
func alive(t *testing.T, pid int) bool {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces; the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitDead waits (up to waitLong) until none of pids is alive.
func waitDead(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for _, pid := range pids {
		for alive(t, pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: process %d is still running", what, pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// readPids reads the pids a test command wrote to path, waiting until it
// has written them.
func readPids(t *testing.T, path string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for {
		b, _ := os.ReadFile(path)
		if f := strings.Fields(string(b)); len(f) == n && strings.HasSuffix(string(b), "\n") {
			pids := make([]int, n)
			for i, s := range f {
				pids[i], _ = strconv.Atoi(s)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command never wrote %d pids to %s", n, path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Issue 8 item 18: a command that leaves a background child holding its
// standard output (sh -c 'sleep 100 & echo done') made the call fail after
// 5 s, and the child outlived the call. The call now answers when the
// command exits, and the rest of its process group is killed.
func TestHardening18GrandchildProcessGroup(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	s, _ := startServer(t, `tools:
  - name: bg
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, 'sleep 100 & echo $! > `+pidFile+`; echo done'], timeout: 60s}}
  - name: bgin
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, 'exec 3<&0; sleep 100 <&3 & echo $! > `+pidFile+`; echo done'], timeout: 60s}}
`)
	c := connected(t, s)
	res, _ := callTool(t, c, "bg", map[string]any{})
	if res.IsError || res.Content[0].Text != "done\n" {
		t.Errorf("a command whose background child keeps stdout open: %+v, want its output", res)
	}
	waitDead(t, "the background child after the call", readPids(t, pidFile, 1)...)

	// The child holds standard input too, unread, and the arguments do
	// not fit in a pipe's buffer: the call still answers.
	if err := os.Remove(pidFile); err != nil {
		t.Fatal(err)
	}
	res, _ = callTool(t, c, "bgin", map[string]any{"pad": strings.Repeat("x", 1<<20)})
	if res.IsError || res.Content[0].Text != "done\n" {
		t.Errorf("a command whose background child holds unread standard input: %+v, want its output", res)
	}
	waitDead(t, "the background child after the call", readPids(t, pidFile, 1)...)
}

// Issue 8 item 18: when the shutdown timeout passed, calls still running
// were abandoned and their processes orphaned. Shutdown now kills the
// process group of every exec call still running before Run returns.
func TestHardening18ShutdownKillsProcessGroups(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pids")
	s, _ := startServer(t, `tools:
  - name: hang
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, 'sleep 100 & echo $$ $! > `+pidFile+`; wait'], timeout: 600s}}
`)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	defer func() { inW.Close(); outR.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error)
	go func() {
		runDone <- s.Run(ctx, RunOptions{Stdin: inR, Stdout: outW, ShutdownTimeout: 50 * time.Millisecond})
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang","arguments":{}}}`+"\n")
	pids := readPids(t, pidFile, 2)
	cancel() // SIGTERM
	if err := <-runDone; err != nil {
		t.Fatal(err)
	}
	waitDead(t, "the command and its child after shutdown", pids...)
}

// execMetric reads an exec pool metric from s's registry: a gauge
// (reason "") or the refused counter with that reason label.
func execMetric(t *testing.T, s *Server, name, reason string) float64 {
	t.Helper()
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetGauge() != nil && reason == "" {
				return m.GetGauge().GetValue()
			}
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no metric %s{reason=%q}", name, reason)
	return 0
}

// Issue 8 item 14: there was no limit on concurrent exec calls (one client
// ran 300 children at once). Calls now wait for a slot of their tool
// (exec concurrency) and of the server (--exec-concurrency) in a bounded
// queue (--exec-queue); beyond it a call is an isError result at once, and
// a call whose timeout passes while it waits is one too. Running, waiting
// and refused calls are metrics.
func TestHardening14ExecConcurrencyLimits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	script := `echo x >> ` + started + `; while [ ! -e ` + release + ` ]; do sleep 0.01; done; echo ok`
	s, _ := startServer(t, `tools:
  - name: a
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, '`+script+`'], concurrency: 2}}
  - name: b
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, '`+script+`']}}
  - name: quick
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/echo, hi], timeout: 100ms}}
`, func(o *testOptions) { o.ExecConcurrency, o.ExecQueue = 3, 2 })
	cs := sdkSession(t, s)
	results := make(chan *mcp.CallToolResult, 8)
	call := func(tool string) {
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
			if err != nil {
				res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			results <- res
		}()
	}
	runs := func() int { b, _ := os.ReadFile(started); return strings.Count(string(b), "x") }
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(waitLong)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s: running %v, waiting %v, started %d", what, execMetric(t, s, "mcpctl_serve_exec_running", ""), execMetric(t, s, "mcpctl_serve_exec_waiting", ""), runs())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	call("a")
	call("a")
	call("a") // over the tool's 2: waits
	waitFor("two a running, one waiting", func() bool { return runs() == 2 && execMetric(t, s, "mcpctl_serve_exec_waiting", "") == 1 })
	call("b")
	waitFor("b running", func() bool { return runs() == 3 })
	call("b") // over the server's 3: waits; the queue (2) is full now
	waitFor("two waiting", func() bool { return execMetric(t, s, "mcpctl_serve_exec_waiting", "") == 2 })
	text := func(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "b", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "busy") {
		t.Errorf("a call over a full queue: %v %+v, want an isError result saying the server is busy", err, res)
	}
	// The queue is full: a call that finds no slot within its timeout.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "quick", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "busy") {
		t.Errorf("a call with the queue full: %v %+v, want busy", err, res)
	}
	if got := execMetric(t, s, "mcpctl_serve_exec_running", ""); got != 3 || runs() != 3 {
		t.Errorf("running = %v, started %d, want 3 (the server's limit)", got, runs())
	}
	if n := execMetric(t, s, "mcpctl_serve_exec_refused_total", "queue-full"); n != 2 {
		t.Errorf("refused{queue-full} = %v, want 2", n)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if r := <-results; r.IsError {
			t.Errorf("a queued call failed: %s", text(r))
		}
	}
	if runs() != 5 {
		t.Errorf("%d commands ran, want 5", runs())
	}
	waitFor("nothing running or waiting", func() bool {
		return execMetric(t, s, "mcpctl_serve_exec_running", "") == 0 && execMetric(t, s, "mcpctl_serve_exec_waiting", "") == 0
	})
}

// Issue 8 item 14: a call that waits for a slot longer than its tool's
// timeout is refused, saying so.
func TestHardening14ExecWaitTimeout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	s, _ := startServer(t, `tools:
  - name: hold
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/sh, -c, 'while [ ! -e `+release+` ]; do sleep 0.01; done'], concurrency: 1}}
  - name: one
    inputSchema: {type: object}
    handler: {exec: {command: [/bin/echo, hi], timeout: 50ms}}
`, func(o *testOptions) { o.ExecConcurrency = 1 })
	defer os.WriteFile(release, nil, 0o600)
	cs := sdkSession(t, s)
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
	}()
	deadline := time.Now().Add(waitLong)
	for execMetric(t, s, "mcpctl_serve_exec_running", "") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("hold never ran")
		}
		time.Sleep(2 * time.Millisecond)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "one", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no slot") {
		t.Errorf("a call that waited past its timeout: %v %+v, want an isError result saying no slot became free", err, res)
	}
	if n := execMetric(t, s, "mcpctl_serve_exec_refused_total", "timeout"); n != 1 {
		t.Errorf("refused{timeout} = %v, want 1", n)
	}
}

// Issue 8 item 14: the tool's concurrency key is a positive integer,
// checked when the config is loaded.
func TestHardening14ConcurrencyKeyChecked(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0", "-1", "1.5", `"4"`, "2000000"} {
		cfg := "tools:\n  - name: t\n    handler:\n      exec: {command: [x], concurrency: " + v + "}\n"
		_, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
		var ie *toolset.InputError
		if !errors.As(err, &ie) || ie.Line != 4 || ie.Pointer != "/tools/0/handler/exec/concurrency" {
			t.Errorf("concurrency: %s: %v, want an error at c.yaml:4, /tools/0/handler/exec/concurrency", v, err)
		}
	}
	cfg := "tools:\n  - name: t\n    handler:\n      exec: {command: [x], concurrency: 3}\n"
	c, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
	if err != nil || c.Tools[0].Handler.Exec.Concurrency != 3 {
		t.Errorf("concurrency: 3: %v", err)
	}
}
