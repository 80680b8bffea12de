package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestAdversarialGatewayHTTPEventLinesAsTheGoSDKReadsThem: event streams
// whose lines the go-sdk's client reads otherwise than the fast path did.
// Reproductions (R the call's response, D a response with the call's id
// saying "decoy", N a notification):
//
//	"event: decoy\r\r\ndata: D\r\r\n\r\r\ndata: R\n\n"  lines ending in CR CR LF
//	"data: N\r\r\n\r\r\ndata: R\n\n"
//	"data:\vR\n\n", "data:\u00a0R\n\n"                  white space before the data
//	"data\ndata: R\n\n", "event\ndata: R\n\n"            a line with no colon
//	"data: R\ndata: N\n\n"                             more data after the message
//
// The go-sdk's client strips every CR and LF ending a line and trims a
// value's white space on both sides: the go-sdk path answered R where the
// fast path answered "the event stream ended before the response" or "sent
// an event that is not JSON-RPC"; it reads an event's first JSON value,
// where the fast path refused more data after it. It ends the session at a line with no
// colon, which the WHATWG HTML specification ("Server-sent events") reads
// as a field with an empty value: the go-sdk path answered "the server
// went away" (and the next call "unavailable (restarting)") where the
// fast path answered R. Now both read such a line as the specification
// does and answer R, and the session serves the next call.
func TestAdversarialGatewayHTTPEventLinesAsTheGoSDKReadsThem(t *testing.T) {
	t.Parallel()
	for _, stream := range []string{
		"event: decoy\r\r\ndata: D\r\r\n\r\r\ndata: R\n\n",
		"data: N\r\r\n\r\r\ndata: R\n\n",
		"data:\vR\n\n",
		"data:\u00a0R \u00a0\n\n",
		"data\ndata: R\n\n",
		"event\ndata: R\n\n",
		"event: decoy\nevent\ndata: R\n\n",
		"data: N\nid\n\nretry\ndata: R",
		"data: R\ndata: N\n\n",
		"event: message \t\r\ndata: D\r\nevent: decoy\r\n\r\nevent:\ndata: R\n\n",
	} {
		t.Run(fmt.Sprintf("%q", stream), func(t *testing.T) {
			t.Parallel()
			url := handUpstream(t, "text/event-stream", func(id json.RawMessage, method, result string) string {
				resp := func(r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, r) }
				if method != "tools/call" || result != `"hostile"` {
					return "data: " + resp(result) + "\n\n"
				}
				return strings.NewReplacer("R", resp(`{"content":[{"type":"text","text":"answered"}]}`),
					"D", resp(`{"content":[{"type":"text","text":"decoy"}]}`),
					"N", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"n"}}`).Replace(stream)
			})
			lines := replyLines([]string{`"hostile"`, `{"content":[{"type":"text","text":"next"}]}`})
			want := bothHTTPPaths(t, url, lines)
			if !strings.Contains(want[0], `"answered"`) || !strings.Contains(want[1], `"next"`) {
				t.Errorf("answers %.300s, then %.300s", want[0], want[1])
			}
		})
	}
}

// TestAdversarialGatewayHTTPListEventNamedOtherThanMessage: an HTTP
// upstream answering tools/list in an event stream whose first event, named
// "decoy", holds a tools/list result with the request's id listing a tool
// "decoy". The go-sdk's client skips that event and reads the real
// result, but the gateway's capture (tapBody), which the tools it serves
// come from, took the decoy's: tools/list answered [decoy]. Now the
// capture skips what the go-sdk's client skips.
func TestAdversarialGatewayHTTPListEventNamedOtherThanMessage(t *testing.T) {
	t.Parallel()
	url := handUpstream(t, "text/event-stream", func(id json.RawMessage, method, result string) string {
		resp := func(r string) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, r) }
		if method != "tools/list" {
			return "data: " + resp(result) + "\n\n"
		}
		decoy := resp(`{"tools":[{"name":"decoy","inputSchema":{"type":"object"}}]}`)
		return "event: decoy\ndata: " + decoy + "\n\nevent: message\ndata: " + resp(result) + "\n\n"
	})
	cfg := fmt.Sprintf("server: {name: g, version: 1.0.0}\nupstreams:\n  - name: up\n    http: {url: %q}\n    timeout: 5s\n", url)
	s, _ := startServer(t, cfg)
	got := sameAnswers(t, s, []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`})
	if !strings.Contains(got[0], `"name":"reply"`) || strings.Contains(got[0], `"decoy"`) {
		t.Errorf("tools/list answered %.400s, want the tool reply", got[0])
	}
}

// TestAdversarialGatewayHTTPEventNotAMessage: an HTTP upstream whose event
// stream answering a call holds, before the response, an event whose data
// the go-sdk's decoder refuses: not JSON ("hello"), blank lines only, a
// response without an id (a server's answer to a request it could not
// parse), another JSON-RPC version. The go-sdk's client ended the session
// at such an event: the call got "the server went away" and the next one
// "unavailable (restarting)"; the fast path answered "sent an event that
// is not JSON-RPC" (or ignored it) and kept the session. Now both skip
// such an event, as the go-sdk skips one without data, and answer the
// response that follows.
func TestAdversarialGatewayHTTPEventNotAMessage(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		"data: hello\n\n",
		"data:\ndata:\n\n",
		`data: {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n\n",
		`data: {"jsonrpc":"1.0","method":"notifications/message","params":{}}` + "\n\n",
		`data: {"jsonrpc":"2.0","id":5,"error":{"code":"x","message":"y"}}` + "\n\n",
	} {
		t.Run(fmt.Sprintf("%q", data), func(t *testing.T) {
			t.Parallel()
			url := handUpstream(t, "text/event-stream", func(id json.RawMessage, method, result string) string {
				resp := fmt.Sprintf("data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, result)
				if method != "tools/call" || !strings.Contains(result, `"first"`) {
					return resp
				}
				return data + resp
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"first"}]}`, `{"content":[{"type":"text","text":"next"}]}`})
			want := bothHTTPPaths(t, url, lines)
			if !strings.Contains(want[0], `"first"`) || !strings.Contains(want[1], `"next"`) {
				t.Errorf("answers %.300s, then %.300s", want[0], want[1])
			}
		})
	}
}

// TestAdversarialGatewayHTTPResponseIDWrittenOtherwise: an HTTP upstream
// that writes the call's id in its response otherwise than it was sent,
// as the same JSON value: a string with an escaped character
// ("mcpctl\u002d…", the fast path's ids) or a number with a fraction
// (1.0, the go-sdk's). The go-sdk's client reads the id's value and
// answers the call; the fast path compared the id's bytes, and in an
// event stream skipped the response ("the event stream ended before the
// response"). Now both read the id as the go-sdk does, in a JSON body and
// in an event stream.
func TestAdversarialGatewayHTTPResponseIDWrittenOtherwise(t *testing.T) {
	t.Parallel()
	for _, contentType := range []string{"application/json", "text/event-stream"} {
		t.Run(contentType, func(t *testing.T) {
			t.Parallel()
			url := handUpstream(t, contentType, func(id json.RawMessage, method, result string) string {
				if method == "tools/call" {
					id = otherwiseWritten(id)
				}
				resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if contentType == "text/event-stream" {
					return "data: " + resp + "\n\n"
				}
				return resp
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"answered"}]}`})
			cfg := fmt.Sprintf("server: {name: g, version: 1.0.0}\nupstreams:\n  - name: up\n    http: {url: %q}\n    timeout: 5s\n", url)
			slow, _ := startServer(t, cfg, func(o *testOptions) { o.noFastCalls = true })
			fast, _ := startServer(t, cfg)
			want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
			if !strings.Contains(want[0], `"answered"`) || got[0] != want[0] {
				t.Errorf("go-sdk path: %.300s\nfast path:   %.300s", want[0], got[0])
			}
		})
	}
}

// otherwiseWritten is id, a JSON string or integer, written otherwise:
// its first '-' escaped, or with a fraction.
func otherwiseWritten(id json.RawMessage) json.RawMessage {
	if id[0] == '"' {
		return json.RawMessage(strings.Replace(string(id), "-", `\u002d`, 1))
	}
	return append(id[:len(id):len(id)], ".0"...)
}
