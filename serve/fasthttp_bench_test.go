package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/upstream"
)

// BenchmarkFastHTTPPreview is BenchmarkGateway's HTTP tools/call
// comparison (same upstream, same clients, same metrics:
// gateway/direct-throughput, added-p99-ms, direct/gateway-cpu) for two
// gateways in the same run:
//
//	call/http-sdk    the gateway as served today (go-sdk on both sides)
//	call/http-fast   the same server with its HTTP fast path answering
//	                 every call by upstream.CallRaw, bytes in and out
//
// http-fast is the bound of the wired fast path: the fast-call core adds
// its validation and routing on top, which this preview does not do.
func BenchmarkFastHTTPPreview(b *testing.B) {
	u := benchUpstream(b)
	upURL := upstreamURL(b, u)
	up, err := upstream.Start(context.Background(), upstream.Options{Name: "m", URL: upURL})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(up.Close)
	gw := benchGateway(b, upURL)
	viaSDK := httptest.NewServer(gw.HTTPHandler(HTTPOptions{}))
	defer viaSDK.Close()
	viaFast := httptest.NewServer(gw.HTTPHandler(HTTPOptions{fastCall: rawPassThrough(up)}))
	defer viaFast.Close()
	call := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "bench"}})
		if err == nil && res.IsError {
			err = fmt.Errorf("call failed: %s", resultText(res))
		}
		return err
	}
	for _, clients := range []int{benchClients, 1} {
		for _, gateway := range []struct{ name, url string }{{"http-sdk", viaSDK.URL}, {"http-fast", viaFast.URL}} {
			b.Run(fmt.Sprintf("call/%s/clients=%d", gateway.name, clients), func(b *testing.B) {
				benchVersus(b, clients, overHTTP(upURL), overHTTP(gateway.url), call)
			})
		}
	}
}

// rawPassThrough is a FastCall forwarding every call to up unchanged.
// (A real one must not decline a call once sent: here an error fails the
// benchmark's call instead.)
func rawPassThrough(up *upstream.Upstream) FastCall {
	return func(ctx context.Context, _ string, id, params json.RawMessage) ([]byte, bool) {
		res, err := up.CallRaw(ctx, params)
		if err != nil {
			return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, id, err.Error()), true
		}
		out := make([]byte, 0, len(res)+len(id)+32)
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, id...)
		out = append(out, `,"result":`...)
		out = append(out, res...)
		return append(out, '}'), true
	}
}
