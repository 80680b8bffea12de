package serve

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/serveconfig"
	"github.com/mcpctl/mcpctl/toolset"
)

// An http handler's url was checked for its scheme only, so a url the
// request cannot be made of (a control character, a space, no host) was
// accepted at build and failed at every call — with an error that quoted
// the whole url to the client, credentials included. Reproduction:
//
//	handler: {http: {url: "http://user:hunter2@127.0.0.1:1/a\r\nHost: x"}}
//
// published, and each call answered `parse "http://user:hunter2@…":
// net/url: invalid control character in URL`. The url is now checked when
// the generation is built (the error locates it and never shows it).
func TestAdversarialHTTPBadURLRefusedAtBuild(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		`http://user:hunter2@127.0.0.1:1/a\r\nHost: x`,
		`http://user:hunter2@127.0.0.1:1/a\u007f`,
		`http:///path-without-host`,
		`http://user:hunter2@[::1/`,
		`https://`,
	} {
		cfg := "tools:\n  - name: t\n    inputSchema: {type: object}\n    handler:\n      http:\n        url: \"" + u + "\"\n"
		c, err := serveconfig.ParseConfig("c.yaml", []byte(cfg), nil)
		if err != nil {
			continue // refused at load: as good
		}
		_, err = buildGeneration(c, buildOptions{getenv: envFunc(nil)})
		var ie *toolset.InputError
		if !errors.As(err, &ie) || ie.Tool != "t" || ie.Line != 5 {
			t.Errorf("url %s: %v, want a located error at line 5 for tool t", u, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("url %s: the error shows the url's credentials: %v", u, err)
		}
	}
}

// Credentials in an http handler's url ("http://user:pass@host/", or a
// query parameter named like a secret, "?api_key=…") are secrets like a
// secret header: an upstream error page that echoes the request
// (Authorization: Basic …, the request line) must not reach the client.
// Reproduction: url http://u:hunter2@HOST/ against an upstream answering
// 400 with the request's Authorization header; the client saw
// "Basic dTpodW50ZXIy".
func TestAdversarialHTTPURLCredentialsWithholdErrorBody(t *testing.T) {
	t.Parallel()
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("bad request %s %v", r.URL, r.Header), http.StatusBadRequest)
	}))
	defer backend.Close()
	host := strings.TrimPrefix(backend.URL, "http://")
	s, _ := startServer(t, `tools:
  - name: userinfo
    inputSchema: {type: object}
    handler: {http: {url: "http://u:hunter2@`+host+`/"}}
  - name: query
    inputSchema: {type: object}
    handler: {http: {url: "http://`+host+`/x?api_key=hunter2"}}
  - name: plain
    inputSchema: {type: object}
    handler: {http: {url: "http://`+host+`/x?page=2"}}
`)
	c := connected(t, s)
	for _, tool := range []string{"userinfo", "query"} {
		res, _ := callTool(t, c, tool, map[string]any{})
		if !res.IsError || !strings.Contains(res.Content[0].Text, "400") {
			t.Errorf("%s: %+v, want an error with the status", tool, res)
		}
		if txt := res.Content[0].Text; strings.Contains(txt, "hunter2") || strings.Contains(txt, "dTpodW50ZXIy") {
			t.Errorf("%s: the upstream's error body showed the client the url's credentials: %q", tool, txt)
		}
	}
	res, _ := callTool(t, c, "plain", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "bad request") {
		t.Errorf("plain: %+v, want the error body passed", res)
	}
}
