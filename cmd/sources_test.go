package cmd

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const sourceToken = "s3cret-token-7f3a"

// startServe runs `mcpctl serve --http ADDR --token-file FILE CONFIG`
// in-process until the test ends and returns its URL.
func startServe(t *testing.T) string {
	t.Helper()
	cfg := writeTemp(t, "mcpctl.serve.yaml", "tools:\n  - name: a\n    inputSchema: {type: object, properties: {q: {type: string}}}\n    handler: {static: {text: x}}\n")
	tok := writeTemp(t, "tok", sourceToken+"\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mcpctlCtx(ctx, t, "serve", "--no-watch", "--log-format", "json", "--http", addr, "--token-file", tok, cfg)
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i == 200 {
			t.Fatalf("serve does not listen on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

// TestIssue10Item2SourceCredentials: snapshot, diff, lint, canon and
// replay (--against and --live) could not send a header, so they could not
// reach mcpctl's own `serve --http --token-file`. --header, --token-file
// and MCPCTL_SOURCE_TOKEN now carry credentials, and no output ever shows
// a header value.
func TestIssue10Item2SourceCredentials(t *testing.T) {
	// not parallel: sets $MCPCTL_SOURCE_TOKEN
	url := startServe(t)
	tok := writeTemp(t, "tok", sourceToken)
	calls := writeTemp(t, "calls.jsonl", `{"tool":"a","arguments":{"q":"x"}}`+"\n")
	bearer := "Authorization: Bearer " + sourceToken
	lock := writeTemp(t, "tools.json", `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	for _, tc := range []struct {
		name string
		env  string // MCPCTL_SOURCE_TOKEN
		args []string
		code int
		want string // on stdout, or on stderr when failing
	}{
		{"no credentials", "", []string{"snapshot", url}, ExitInput, "401 Unauthorized"},
		{"no credentials: a hint", "", []string{"lint", url}, ExitInput, "send credentials with --header 'Authorization: Bearer …', --token-file FILE or $MCPCTL_SOURCE_TOKEN"},
		{"wrong token", "", []string{"snapshot", "--header", "Authorization: Bearer wrong-7f3a", url}, ExitInput, "401 Unauthorized"},
		{"malformed header", "", []string{"snapshot", "--header", "Authorization Bearer " + sourceToken, url}, ExitInput, "--header number 1: want 'Name: value'"},
		{"snapshot --header", "", []string{"snapshot", "--header", bearer, "--header", "X-Tenant: t1", url}, ExitOK, `"name": "a"`},
		{"snapshot --token-file", "", []string{"snapshot", "--token-file", tok, url}, ExitOK, `"name": "a"`},
		{"snapshot with the environment", sourceToken, []string{"snapshot", url}, ExitOK, `"name": "a"`},
		{"token file and header", "", []string{"snapshot", "--token-file", tok, "--header", bearer, url}, ExitInput, "give one"},
		{"diff", "", []string{"diff", "--token-file", tok, url, url}, ExitOK, "level: none"},
		{"lint", "", []string{"lint", "--token-file", tok, url}, ExitOK, "1 tool, 0 errors"},
		{"canon", "", []string{"canon", "--token-file", tok, url}, ExitOK, `"name":"a"`},
		{"replay --live without credentials", "", []string{"replay", calls, "--against", lock, "--live", url, "--yes"}, ExitInput, "--token-file FILE or $MCPCTL_SOURCE_TOKEN"},
		{"replay --live", "", []string{"replay", calls, "--against", url, "--live", url, "--yes", "--token-file", tok}, ExitOK, "1 accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(SourceTokenEnv, tc.env)
			r := mcpctl(t, tc.args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.out, r.errOut)
			}
			got := r.out
			if tc.code != ExitOK {
				got = r.errOut
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("output lacks %q\nstdout:\n%s\nstderr:\n%s", tc.want, r.out, r.errOut)
			}
			for _, secret := range []string{sourceToken, "wrong-7f3a"} {
				if strings.Contains(r.out+r.errOut, secret) {
					t.Errorf("a header value is printed:\nstdout:\n%s\nstderr:\n%s", r.out, r.errOut)
				}
			}
		})
	}
}

// TestIssue10Item2HeaderValuesRedacted: a server that echoes a header back
// in its error (here a JSON-RPC error in a 400 answer) does not get the
// value printed: errors hide every header value.
func TestIssue10Item2HeaderValuesRedacted(t *testing.T) {
	// not parallel: sets $MCPCTL_SOURCE_TOKEN
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad credentials %s for tenant %s"}}`,
			r.Header.Get("Authorization"), r.Header.Get("X-Tenant"))
	}))
	defer ts.Close()
	t.Setenv(SourceTokenEnv, "")
	r := mcpctl(t, "snapshot", "--header", "Authorization: Bearer "+sourceToken, "--header", "X-Tenant: tenant-7f3a", ts.URL)
	if r.code != ExitInput {
		t.Fatalf("exit %d, want %d:\n%s", r.code, ExitInput, r.errOut)
	}
	if !strings.Contains(r.errOut, "bad credentials") || !strings.Contains(r.errOut, "[redacted]") {
		t.Errorf("stderr lacks the redacted echo:\n%s", r.errOut)
	}
	for _, secret := range []string{sourceToken, "tenant-7f3a"} {
		if strings.Contains(r.out+r.errOut, secret) {
			t.Errorf("a header value is printed:\n%s", r.errOut)
		}
	}
}
