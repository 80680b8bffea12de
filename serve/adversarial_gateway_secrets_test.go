package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/internal/textcut"
)

// Secrets of TestAdversarialGatewaySecrets: the header value read from the
// environment, the URL's password and the URL's query token.
const (
	advHeaderSecret = "hdr-s3cr3t-value"
	advPassword     = "pa55w0rd-in-url"
	advQuerySecret  = "qu3ry-t0ken-in-url"
)

// TestAdversarialGatewaySecrets: an http upstream's header value (from an
// environment variable) and the credentials of its URL (userinfo, query)
// must never reach a client, the logs, /status, the metrics or the records,
// even when the upstream echoes the header in an error
// (Authorization: Bearer …; "denied for Bearer …") and when it goes away
// (the transport's error names the URL).
func TestAdversarialGatewaySecrets(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echoing", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("denied for " + req.Extra.Header.Get("Authorization"))
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
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
	cs := connectSDK(t, s, nil)
	var seen []string
	call := func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "web_whoami", Arguments: map[string]any{}})
		if err != nil {
			seen = append(seen, "error: "+err.Error())
			return
		}
		b, _ := json.Marshal(res)
		seen = append(seen, "result: "+string(b))
	}
	call() // the upstream echoes the header in its error
	hs.CloseClientConnections()
	hs.Close()
	call() // the upstream is gone: the transport's error names the URL
	call()
	st, _ := json.Marshal(s.Status())
	seen = append(seen, "status: "+string(st))
	mw := httptest.NewRecorder()
	s.AdminHandler(AdminOptions{}).ServeHTTP(mw, httptest.NewRequest("GET", "/metrics", nil))
	seen = append(seen, "metrics: "+mw.Body.String())
	s.Close()
	seen = append(seen, "logs: "+logs.String())
	seen = append(seen, "records: "+readDir(t, rec))
	for _, secret := range []string{advHeaderSecret, advPassword, advQuerySecret} {
		for _, where := range seen {
			if strings.Contains(where, secret) {
				t.Errorf("secret %q shown in %s", secret, textcut.Cut(where, 2000))
			}
		}
	}
}

// readDir concatenates the files of dir.
func readDir(t *testing.T, dir string) string {
	t.Helper()
	var out strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(&out, f)
		f.Close()
	}
	return out.String()
}
