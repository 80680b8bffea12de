package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/textcut"
)

// TestAdversarialFastGatewaySecrets is TestAdversarialGatewaySecrets with
// the downstream on the fast path, so that the upstream call is the raw
// HTTP one (upstream.CallRaw): the upstream echoes the Authorization
// header in a JSON-RPC error and, for a second tool, in the body of an
// HTTP 500 (which the raw path quotes), with the URL; then it goes away
// (the transport's error names the URL). No secret may reach the client,
// the logs, /status, the metrics or the records.
func TestAdversarialFastGatewaySecrets(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echoing", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("denied for " + req.Extra.Header.Get("Authorization"))
	})
	srv.AddTool(&mcp.Tool{Name: "status500", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"status500"`)) {
			http.Error(w, "denied for "+r.Header.Get("Authorization")+" at "+r.URL.String(), http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sdk.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	url := strings.Replace(hs.URL, "http://", "http://alice:"+advPassword+"@", 1) + "/mcp?key=" + advQuerySecret
	config := "upstreams:\n  - name: web\n    http: {url: '" + url + "', headers: {Authorization: {env: WEB_AUTH}}}\n    prefix: web_\n    timeout: 5s\n"
	logs := &syncBuffer{}
	rec := t.TempDir()
	s, _ := startServer(t, config, func(o *testOptions) {
		o.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.RecordDir = rec
		o.UpstreamBackoff = 10 * time.Millisecond
		o.Getenv = func(k string) (string, bool) {
			if k == "WEB_AUTH" {
				return "Bearer " + advHeaderSecret, true
			}
			return "", false
		}
	})
	cs := streamClient(t, s, fastTestRevision)
	var seen []string
	call := func(name string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			seen = append(seen, "error: "+err.Error())
			return
		}
		b, _ := json.Marshal(res)
		seen = append(seen, "result: "+string(b))
	}
	call("web_whoami")
	call("web_status500")
	if n := s.fastCalls.Load(); n != 2 {
		t.Errorf("the fast path took %d calls, want 2", n)
	}
	hs.CloseClientConnections()
	hs.Close()
	call("web_whoami")
	call("web_whoami")
	st, _ := json.Marshal(s.Status())
	seen = append(seen, "status: "+string(st))
	mw := httptest.NewRecorder()
	s.AdminHandler(AdminOptions{}).ServeHTTP(mw, httptest.NewRequest("GET", "/metrics", nil))
	seen = append(seen, "metrics: "+mw.Body.String())
	s.Close()
	seen = append(seen, "logs: "+logs.String())
	seen = append(seen, "records: "+readDir(t, rec))
	if !strings.Contains(seen[1], "denied for") {
		t.Errorf("the 500's body is not quoted: %s", seen[1])
	}
	for _, secret := range []string{advHeaderSecret, advPassword, advQuerySecret} {
		for _, where := range seen {
			if strings.Contains(where, secret) {
				t.Errorf("secret %q shown in %s", secret, textcut.Cut(where, 2000))
			}
		}
	}
}
