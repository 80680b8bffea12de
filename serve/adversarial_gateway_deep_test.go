package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAdversarialGatewayHTTPUpstreamResultNestedTooDeep: the HTTP side of
// TestAdversarialFast2UpstreamResultNestedTooDeep. Reproduction: a go-sdk
// upstream over streamable HTTP answers a call with structuredContent
// nested 1001 levels deep; on the go-sdk path the gateway's client failed
// the upstream session ("failed to decode event: … exceeded maximum
// nesting depth of 1000"), so the next call got "the server went away
// during the call"; the fast path answered another text. Now both paths
// answer the same tool error and the session serves the next call, with
// the upstream answering in an SSE stream or a JSON body.
func TestAdversarialGatewayHTTPUpstreamResultNestedTooDeep(t *testing.T) {
	t.Parallel()
	deep := `{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`
	lines := replyLines([]string{deep, `{"a":1}`})
	for _, jsonBody := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonBody), func(t *testing.T) {
			want := bothHTTPPaths(t, structuredUpstream(t, jsonBody), lines)
			if !strings.Contains(want[0], `nested deeper than 1000 levels"`) || !strings.Contains(want[1], `"structuredContent":{"a":1}`) {
				t.Errorf("answers %.300s, then %.300s", want[0], want[1])
			}
		})
	}
}

// TestAdversarialGatewayHTTPUpstreamResultNotJSONBelowItsTop: the HTTP
// side of TestAdversarialFast2UpstreamResultNotJSONBelowItsTop.
// Reproduction: an upstream over streamable HTTP answers a call with a
// raw tab in a text; on the go-sdk path the gateway's client failed the
// upstream session ("the server went away during the call", the next
// call "unavailable (restarting)"); the fast path answered "answered a
// tools/call with invalid JSON". Now both paths answer the same tool
// error and the session serves the next call, with the upstream
// answering in an SSE stream or a JSON body.
func TestAdversarialGatewayHTTPUpstreamResultNotJSONBelowItsTop(t *testing.T) {
	t.Parallel()
	badAnswerOverHTTP(t, func(id json.RawMessage) string {
		return fmt.Sprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\tb\"}]}}", id)
	}, `the server's response is not valid JSON"`)
}

// TestAdversarialGatewayHTTPUpstreamErrorNotAnErrorObject: the HTTP side
// of TestAdversarialFast2UpstreamErrorNotAnErrorObject. Reproduction: an
// upstream over streamable HTTP answers a call with "error":5; in an SSE
// stream the event was skipped and the call got "request terminated
// without response", in a JSON body "a body that is not its response".
// Both paths now answer "the server's response is not a valid JSON-RPC
// response" and the session serves the next call.
func TestAdversarialGatewayHTTPUpstreamErrorNotAnErrorObject(t *testing.T) {
	t.Parallel()
	badAnswerOverHTTP(t, func(id json.RawMessage) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":5}`, id)
	}, `the server's response is not a valid JSON-RPC response"`)
}

// badAnswerOverHTTP has an upstream over streamable HTTP answer a call
// with bad(its id), in an SSE stream and in a JSON body, and checks that
// both paths answer the call with want and the next call as the upstream
// does.
func badAnswerOverHTTP(t *testing.T, bad func(id json.RawMessage) string, want string) {
	for _, ct := range []string{"text/event-stream", "application/json"} {
		t.Run(ct, func(t *testing.T) {
			url := handUpstream(t, ct, func(id json.RawMessage, method, result string) string {
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if method == "tools/call" && strings.Contains(result, `"bad"`) {
					msg = bad(id)
				}
				if ct == "text/event-stream" {
					return "data: " + msg + "\n\n"
				}
				return msg
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"bad"}]}`, `{"content":[{"type":"text","text":"ok"}]}`})
			got := bothHTTPPaths(t, url, lines)
			if !strings.Contains(got[0], want) || !strings.Contains(got[1], `"text":"ok"`) {
				t.Errorf("answers %.300s, then %.300s", got[0], got[1])
			}
		})
	}
}

// structuredUpstream is a go-sdk server over streamable HTTP whose tool
// "reply" answers with its argument "raw" as structuredContent.
func structuredUpstream(t *testing.T, jsonBody bool) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "structured", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "reply", InputSchema: json.RawMessage(`{"type":"object","properties":{"raw":{"type":"string"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Raw string }
			if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: json.RawMessage(a.Raw)}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonBody}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestAdversarialGatewayHTTPLastEventUnterminated: an HTTP upstream that
// ends the event stream answering a call right after its response's data
// line, without the blank line that ends the event. The go-sdk's client
// dispatches such a last event, so the go-sdk path answered the call;
// the fast path answered "the event stream ended before the response"
// (upstream unavailable). A response nested too deep in such an event
// ended the go-sdk path's session too. Now both paths answer alike.
func TestAdversarialGatewayHTTPLastEventUnterminated(t *testing.T) {
	t.Parallel()
	text := `"content":[{"type":"text","text":"answered"}]`
	deep := `{` + text + `,"structuredContent":{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}}`
	lines := replyLines([]string{`{` + text + `}`, deep, `{` + text + `}`})
	want := bothHTTPPaths(t, unterminatedUpstream(t), lines)
	if !strings.Contains(want[0], `"answered"`) || !strings.Contains(want[1], `nested deeper than 1000 levels"`) || !strings.Contains(want[2], `"answered"`) {
		t.Errorf("answers %.200s, then %.200s, then %.200s", want[0], want[1], want[2])
	}
}

// unterminatedUpstream is a streamable HTTP server written by hand that
// answers every request in an event stream of one event whose blank line
// never comes (the stream ends after its data line), a tools/call with
// its argument "raw" as the result.
func unterminatedUpstream(t *testing.T) string {
	return handUpstream(t, "text/event-stream", func(id json.RawMessage, _, result string) string {
		return fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", id, result)
	})
}

// handUpstream is a streamable HTTP server written by hand: it answers
// every request with a body of type contentType, body(id, method,
// result), result the request's result (a tools/call's is its argument
// "raw").
func handUpstream(t *testing.T, contentType string, body func(id json.RawMessage, method, result string) string) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m handRequest
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := m.result("2025-11-25", "hand")
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, body(m.ID, m.Method, result))
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestAdversarialGatewayHTTPEventNamedOtherThanMessage: an HTTP upstream
// whose event stream answering a call holds, before the real response, an
// event named "decoy" whose data is a response with the call's id. The
// go-sdk's client reads only events named "message" (or unnamed: WHATWG
// HTML, "Server-sent events", the default event type), so the go-sdk
// path answered the real response; the fast path read every event and
// answered the decoy.
func TestAdversarialGatewayHTTPEventNamedOtherThanMessage(t *testing.T) {
	t.Parallel()
	url := handUpstream(t, "text/event-stream", func(id json.RawMessage, method, result string) string {
		resp := func(r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, r) }
		if method != "tools/call" {
			return "data: " + resp(result) + "\n\n"
		}
		decoy := resp(`{"content":[{"type":"text","text":"decoy"}]}`)
		return "event: decoy\ndata: " + decoy + "\n\nevent:message\ndata: " + resp(result) + "\n\n"
	})
	want := bothHTTPPaths(t, url, replyLines([]string{`{"content":[{"type":"text","text":"answered"}]}`}))
	if !strings.Contains(want[0], `"answered"`) {
		t.Errorf("go-sdk path answered %.300s", want[0])
	}
}

// TestAdversarialGatewayHTTPBodyNestedTooDeepNotAResponse: an HTTP
// upstream that answers a call with a JSON body holding a notification
// nested 1001 levels deep, neither the response nor a request. The go-sdk
// path handed it whole to the go-sdk, whose decoder refuses it, and that
// ended the upstream's session: the call got "the server went away" and
// the next one "unavailable (restarting)"; the fast path answered "a
// message that is not its response". Both now answer the call with the
// error response a response nested too deep gets, and the session lives.
func TestAdversarialGatewayHTTPBodyNestedTooDeepNotAResponse(t *testing.T) {
	t.Parallel()
	url := handUpstream(t, "application/json", func(id json.RawMessage, method, result string) string {
		if method == "tools/call" && result == `"deep"` {
			return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
	})
	want := bothHTTPPaths(t, url, replyLines([]string{`"deep"`, `{"content":[{"type":"text","text":"answered"}]}`}))
	if !strings.Contains(want[0], `nested deeper than 1000 levels`) || !strings.Contains(want[1], `"answered"`) {
		t.Errorf("answers %.300s, then %.300s", want[0], want[1])
	}
}

// bothHTTPPaths sends lines to a gateway in front of the HTTP upstream at
// url through the go-sdk path (noFastCalls) and through the fast path,
// fails t where the answers differ, and returns the go-sdk path's.
func bothHTTPPaths(t *testing.T, url string, lines []string) []string {
	t.Helper()
	cfg := fmt.Sprintf("server: {name: g, version: 1.0.0}\nupstreams:\n  - name: up\n    http: {url: %q}\n    timeout: 5s\n", url)
	slow, _ := startServer(t, cfg, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, cfg)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("call %d:\n go-sdk path: %.300s\n fast path:   %.300s", i+1, want[i], got[i])
		}
	}
	return want
}

// TestAdversarialGatewayHTTPBodyNotTheResponse: an HTTP upstream that
// answers a call with a JSON body that is not the call's response: a
// response to another id (nested too deep or not, or with the call's id
// then another one: the last counts), a server request (ping), a batch,
// the response followed by more bytes, or a response of another JSON-RPC
// version (which the go-sdk's decoder refuses; the fast path read it as
// the response). The go-sdk's client takes such
// a body as one more message, not as the call's answer: on the go-sdk
// path the call waited for the upstream's timeout ("no answer within
// 2s", also where TooDeepAnswering had said the body answers the call),
// and a batch ended the session ("the server went away", the next call
// "unavailable (restarting)"); the fast path answered "a message that
// is not its response" or "invalid JSON" at once, and the response
// followed by more bytes, which the go-sdk reads, as invalid JSON. Now
// both paths answer such a call at once with the same error, and the
// response followed by more bytes with the response.
func TestAdversarialGatewayHTTPBodyNotTheResponse(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"zz","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"zz","result":{"a":` + deep + `}}`,
		`{"jsonrpc":"2.0","id":ID,"id":"zz","result":{"a":` + deep + `}}`,
		`{"jsonrpc":"2.0","id":"zz","method":"ping"}`,
		`{"jsonrpc":"2.0","id":"zz","method":"ping","params":{"a":` + deep + `}}`,
		`[R]`,
		`R x`,
		`R{"jsonrpc":"2.0","id":"zz","result":{}}`,
		`{"jsonrpc":"1.0","id":ID,"result":{"content":[]}}`,
		`{"id":ID,"result":{"content":[]}}`,
	} {
		t.Run(body[:min(len(body), 40)], func(t *testing.T) {
			t.Parallel()
			url := handUpstream(t, "application/json", func(id json.RawMessage, method, result string) string {
				resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if method != "tools/call" || !strings.Contains(result, `"first"`) {
					return resp
				}
				return strings.NewReplacer("R", resp, "ID", string(id)).Replace(body)
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"first"}]}`, `{"content":[{"type":"text","text":"next"}]}`})
			want := bothHTTPPaths(t, url, lines)
			if strings.Contains(want[0], "no answer within") || !strings.Contains(want[1], `"next"`) {
				t.Errorf("answers %.300s, then %.300s", want[0], want[1])
			}
		})
	}
}
