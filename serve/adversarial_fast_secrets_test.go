package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAdversarialFastGatewaySecrets is TestAdversarialGatewaySecrets with
// the downstream on the fast path, so that the upstream call is the raw
// HTTP one (upstream.CallRaw): the upstream echoes the Authorization
// header in a JSON-RPC error and, for a second tool, in the body of an
// HTTP 500 (which the raw path quotes), with the URL; then it goes away
// (the transport's error names the URL). No secret may reach the client,
// the logs, /status, the metrics or the records.
func TestAdversarialFastGatewaySecrets(t *testing.T) {
	t.Parallel()
	srv := echoingUpstream()
	srv.AddTool(&mcp.Tool{Name: "status500", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	r := newSecretsRig(t, srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"status500"`)) {
			http.Error(w, "denied for "+r.Header.Get("Authorization")+" at "+r.URL.String(), http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sdk.ServeHTTP(w, r)
	}), true)
	r.call("web_whoami")
	r.call("web_status500")
	if n := r.s.fastCalls.Load(); n != 2 {
		t.Errorf("the fast path took %d calls, want 2", n)
	}
	r.hs.CloseClientConnections()
	r.hs.Close()
	r.call("web_whoami")
	r.call("web_whoami")
	if !strings.Contains(r.seen[1], "denied for") {
		t.Errorf("the 500's body is not quoted: %s", r.seen[1])
	}
	r.check(t)
}
