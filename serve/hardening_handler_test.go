package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

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
	cfg := "tools:\n  - name: t\n    inputSchema: {type: object}\n    handler:\n      http:\n        url: http://127.0.0.1:1/\n        headers:\n          X-Ok: fine\n          X-Bad: \"a\\r\\nX-Injected: 1\"\n"
	_, err := ParseConfig("c.yaml", []byte(cfg), nil)
	var ie *toolset.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("a header value with CR/LF was accepted: %v", err)
	}
	if ie.Line != 9 || ie.Tool != "t" || ie.Pointer != "/tools/0/handler/http/headers/X-Bad" {
		t.Errorf("error located at line %d tool %q pointer %q, want line 9, tool t, /tools/0/handler/http/headers/X-Bad: %v", ie.Line, ie.Tool, ie.Pointer, err)
	}
	for _, bad := range []string{`"X Bad"`, `"X-Bad:"`, `""`} {
		c := strings.Replace(cfg, `X-Bad: "a\r\nX-Injected: 1"`, bad+": v", 1)
		if _, err := ParseConfig("c.yaml", []byte(c), nil); !errors.As(err, &ie) || ie.Line != 9 {
			t.Errorf("header name %s: %v, want a located error at line 9", bad, err)
		}
	}

	// From the environment: refused when the generation is built.
	cfg = "tools:\n  - name: t\n    inputSchema: {type: object}\n    handler:\n      http:\n        url: http://127.0.0.1:1/\n        headers: {Authorization: \"Bearer ${TOKEN}\"}\n"
	c, err := ParseConfig("c.yaml", []byte(cfg), nil)
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
`, func(o *Options) { o.Getenv = envFunc(map[string]string{"API_KEY": "k-secret"}) })
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
// the environment (and passed, shortened, when it did not).
func TestHardening17UpstreamErrorDoesNotEchoSecrets(t *testing.T) {
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
`, func(o *Options) { o.Getenv = envFunc(map[string]string{"TOKEN": "tok-hunter2"}) })
	c := connected(t, s)
	res, _ := callTool(t, c, "secret", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "400") {
		t.Errorf("upstream error: %+v, want an error with the status", res)
	}
	if strings.Contains(res.Content[0].Text, "hunter2") {
		t.Errorf("the upstream's error body showed the client the secret header: %q", res.Content[0].Text)
	}
	res, _ = callTool(t, c, "plain", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "bad request; you sent") {
		t.Errorf("upstream error without secret headers: %+v, want its body passed", res)
	}
}
