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
	t.Parallel()
	srv := echoingUpstream()
	r := newSecretsRig(t, srv, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil), false)
	r.call("web_whoami") // the upstream echoes the header in its error
	r.hs.CloseClientConnections()
	r.hs.Close()
	r.call("web_whoami") // the upstream is gone: the transport's error names the URL
	r.call("web_whoami")
	r.check(t)
}

// echoingUpstream is a go-sdk server whose tool whoami fails naming the
// request's Authorization header.
func echoingUpstream() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "echoing", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("denied for " + req.Extra.Header.Get("Authorization"))
	})
	return srv
}

// secretsRig is a gateway in front of an HTTP upstream reached with the
// secrets above (a header from the environment, a URL with a password and
// a query token), and what it has shown so far.
type secretsRig struct {
	s    *Server
	hs   *httptest.Server
	cs   *mcp.ClientSession
	logs *syncBuffer
	rec  string
	seen []string
}

// newSecretsRig starts h as the upstream (srv's sessions closed at
// cleanup) and the gateway, with its client on the fast path when fast.
func newSecretsRig(t *testing.T, srv *mcp.Server, h http.Handler, fast bool) *secretsRig {
	r := &secretsRig{hs: httptest.NewServer(h), logs: &syncBuffer{}, rec: t.TempDir()}
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	url := strings.Replace(r.hs.URL, "http://", "http://alice:"+advPassword+"@", 1) + "/mcp?key=" + advQuerySecret
	config := "upstreams:\n  - name: web\n    http: {url: '" + url + "', headers: {Authorization: {env: WEB_AUTH}}}\n    prefix: web_\n    timeout: 5s\n"
	r.s, _ = startServer(t, config, func(o *testOptions) {
		o.Logger = slog.New(slog.NewJSONHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.RecordDir = r.rec
		o.UpstreamBackoff = 10 * time.Millisecond
		o.Getenv = func(k string) (string, bool) {
			if k == "WEB_AUTH" {
				return "Bearer " + advHeaderSecret, true
			}
			return "", false
		}
	})
	if fast {
		r.cs = streamClient(t, r.s, fastTestRevision)
	} else {
		r.cs = connectSDK(t, r.s, nil)
	}
	return r
}

// call calls the tool name and keeps what the client saw.
func (r *secretsRig) call(name string) {
	res, err := r.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		r.seen = append(r.seen, "error: "+err.Error())
		return
	}
	b, _ := json.Marshal(res)
	r.seen = append(r.seen, "result: "+string(b))
}

// check adds /status, the metrics, the logs and the records (after the
// server closed) to what was seen, and fails the test on any secret there.
func (r *secretsRig) check(t *testing.T) {
	t.Helper()
	st, _ := json.Marshal(r.s.Status())
	r.seen = append(r.seen, "status: "+string(st))
	mw := httptest.NewRecorder()
	r.s.AdminHandler(AdminOptions{}).ServeHTTP(mw, httptest.NewRequest("GET", "/metrics", nil))
	r.seen = append(r.seen, "metrics: "+mw.Body.String())
	r.s.Close()
	r.seen = append(r.seen, "logs: "+r.logs.String(), "records: "+readDir(t, r.rec))
	for _, secret := range []string{advHeaderSecret, advPassword, advQuerySecret} {
		for _, where := range r.seen {
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
