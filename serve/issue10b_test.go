package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestIssue10Item14MCPOnlyOnSlashMCP: the streamable HTTP listener answered
// MCP on every path (POST / and POST /anything initialized a session). It
// serves MCP on MCPPath only (MCP 2025-11-25 basic/transports, "Streamable
// HTTP": a single endpoint path) and answers 404 elsewhere, marked with
// ListenerHeader so `mcpctl status` can tell it was given the wrong address.
func TestIssue10Item14MCPOnlyOnSlashMCP(t *testing.T) {
	t.Parallel()
	s, _ := startServer(t, baseConfig)
	ts := httptest.NewServer(s.HTTPMux(HTTPOptions{Stateless: true})) // no session to leak
	defer ts.Close()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(path string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := post(MCPPath); resp.StatusCode != http.StatusOK {
		t.Errorf("POST %s: %s, want 200", MCPPath, resp.Status)
	}
	for _, p := range []string{"/", "/status", "/mcp/", "/other"} {
		resp := post(p)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get(ListenerHeader) != "mcp" {
			t.Errorf("POST %s: %s %s=%q, want 404 marked mcp", p, resp.Status, ListenerHeader, resp.Header.Get(ListenerHeader))
		}
	}
}
