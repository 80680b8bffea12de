package mcpclient

import (
	"slices"
	"strings"
	"testing"
)

// TestPlainResponse: only a response of exactly jsonrpc ("2.0"), id and
// result is read strictly; everything else (an error, a request, another
// member, a member name in another case, a duplicate, invalid UTF-8, no
// or another JSON-RPC version, which the go-sdk's decoder refuses:
// TestAdversarialGatewayHTTPBodyNotTheResponse) is left to the slower
// reading, as before.
func TestPlainResponse(t *testing.T) {
	for _, tc := range []struct {
		line, id, result string
	}{
		{`{"jsonrpc":"2.0","id":"mcpctl-1","result":{"content":[]}}`, `"mcpctl-1"`, `{"content":[]}`},
		{` {"result" : null , "id":7, "jsonrpc":"2.0"} `, `7`, `null`},
		{`{"result":null,"id":7}`, "", ""},
		{`{"jsonrpc":"1.0","id":7,"result":null}`, "", ""},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}}`, "", ""},
		{`{"jsonrpc":"2.0","id":"a","result":{},"error":null}`, "", ""},
		{`{"jsonrpc":"2.0","id":"a","method":"x","result":{}}`, "", ""},
		{`{"jsonrpc":"2.0","ID":"a","result":{}}`, "", ""},
		{`{"jsonrpc":"2.0","id":"a","result":{},"result":{}}`, "", ""},
		{`{"jsonrpc":"2.0","id":"a"}`, "", ""},
		{"{\"id\":\"\xff\",\"result\":{}}", "", ""},
		{`[{"id":"a","result":{}}]`, "", ""},
	} {
		id, res, ok := PlainResponse([]byte(tc.line))
		if ok != (tc.id != "") {
			t.Errorf("PlainResponse(%s) ok = %v", tc.line, ok)
			continue
		}
		if ok && (tc.line[id.Start:id.End] != tc.id || tc.line[res.Start:res.End] != tc.result) {
			t.Errorf("PlainResponse(%s) = id %s, result %s; want %s, %s", tc.line, tc.line[id.Start:id.End], tc.line[res.Start:res.End], tc.id, tc.result)
		}
	}
}

// TestTakeLineTakesResponsesOutOfABatch: a stdio server may answer in a
// batch (TestAdversarialFast2UpstreamResponseInABatch in serve is the
// gateway's reproduction: the raw call waited for its timeout). Each
// response to a raw call is handed to its call and taken out of the
// batch; what is left goes to the go-sdk.
func TestTakeLineTakesResponsesOutOfABatch(t *testing.T) {
	t.Parallel()
	r := NewRawCalls(0)
	ours := func(n string) string { return `{"jsonrpc":"2.0","id":"` + r.prefix + n + `","result":{"n":` + n + `}}` }
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + r.prefix + `"}}`
	for _, c := range []struct {
		name, line, rest string
		taken            bool
		calls            []string
	}{
		{"one response", "[" + ours("1") + "]", "", true, []string{"1"}},
		{"response and notification", "[ " + ours("2") + " ,\n" + note + " ]", "[" + note + "]", true, []string{"2"}},
		{"two responses", "[" + ours("3") + "," + ours("4") + "]", "", true, []string{"3", "4"}},
		{"none of ours", "[" + note + "]", "", false, nil},
		{"not JSON", "[" + ours("5"), "", false, nil},
		{"a plain response", ours("6"), "", true, []string{"6"}},
		{"an id escaped", strings.Replace(ours("7"), "-", `\u002d`, 1), "", true, []string{"7"}},
		{"an id escaped, in a batch", "[" + note + "," + strings.Replace(ours("8"), "-", `\u002d`, 1) + "]", "[" + note + "]", true, []string{"8"}},
		{"an escape, not our id", `{"jsonrpc":"2.0","id":"\u0061","result":{}}`, "", false, nil},
	} {
		chans := map[string]chan rawResponse{}
		for _, n := range c.calls {
			chans[n] = make(chan rawResponse, 1)
			r.pending[r.prefix+n] = chans[n]
		}
		rest, taken := r.takeLine([]byte(c.line))
		if string(rest) != c.rest || taken != c.taken {
			t.Errorf("%s: takeLine = %q, %v, want %q, %v", c.name, rest, taken, c.rest, c.taken)
		}
		for n, ch := range chans {
			select {
			case resp := <-ch:
				if string(resp.result) != `{"n":`+n+`}` {
					t.Errorf("%s: call %s got %s", c.name, n, resp.result)
				}
			default:
				t.Errorf("%s: call %s got no response", c.name, n)
			}
		}
	}
}

// TestGoSDKLineSkipsWhatTheGoSDKRefuses: the go-sdk's stdio transport
// ends the connection at a line its decoder refuses (a server's JSON log
// line, a response with a null id, more after a message, not JSON) or at
// a batch holding one, two requests with one id or two notifications
// (also a message that is JSON at its top level only: a skim of the line
// took one with a trailing comma or a raw tab in a nested value, and the
// connection ended; a response now becomes an error response to its
// request, a request loses its params)
// (TestAdversarialFast2UpstreamBatchTheGoSDKRefuses and
// TestAdversarialGatewayStdioLineNotAMessage in serve). Such a line is
// skipped, a line's values and such a batch split into the messages the
// go-sdk reads.
func TestGoSDKLineSkipsWhatTheGoSDKRefuses(t *testing.T) {
	t.Parallel()
	resp := `{"jsonrpc":"2.0","id":1,"result":{}}`
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	roots := `{"jsonrpc":"2.0","id":2.0,"method":"roots/list"}`
	note := `{"jsonrpc":"2.0","method":"a"}`
	notJSON := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the server's response is not valid JSON"}}`
	notRPC := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"the server's response is not a valid JSON-RPC response"}}`
	for _, c := range []struct {
		line    string
		want    []string
		changed bool
	}{
		{resp, nil, false},
		{`{"level":"info","msg":"started"}`, nil, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, nil, true},
		{resp + ` x`, []string{resp}, true},
		{resp + ` 5 ` + ping, []string{resp, ping}, true},
		{`{oops`, nil, true},
		{"[" + resp + "," + ping + "]", nil, false},
		{"[" + resp + ",5," + ping + "]", []string{resp, ping}, true},
		{"[" + ping + "," + resp + "," + roots + "]", []string{ping, resp, roots}, true},
		{"[" + note + "," + note + "]", []string{note, note}, true},
		{"[5]", nil, true},
		{"[]", nil, true},
		{"[" + resp + "] x", []string{resp}, true},
		{"[" + resp + "] []", []string{resp}, true},
		// Not JSON below the top level, which canon.Skim does not read:
		// a response becomes an error response, a request loses its
		// params, a notification is skipped.
		{`{"jsonrpc":"2.0","method":"a","params":[1,]}`, nil, true},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"a\tb\"}}", []string{notJSON}, true},
		{`{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{"x":"\U0041"}}`, []string{`{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{}}`}, true},
		{"[" + ping + `,{"jsonrpc":"2.0","id":1,"result":[1,]},{"jsonrpc":"2.0","method":"a","params":{"x":"\U0041"}}]`, []string{ping, notJSON}, true},
		{"[" + ping + `,{"jsonrpc":"2.0","id":1,"result":[1,]}]`, []string{ping, notJSON}, true},
		// A response whose error is not an error object (or is null,
		// without a result): an error response; a log line with an
		// "error" member is skipped.
		{`{"jsonrpc":"2.0","id":1,"error":5}`, []string{notRPC}, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, []string{notRPC}, true},
		{`{"jsonrpc":"2.0","id":1,"error":null}`, []string{notRPC}, true},
		{`{"jsonrpc":"2.0","id":1,"error":null,"result":{}}`, nil, false},
		{`{"level":"error","id":1,"error":5}`, nil, true},
		{"[" + ping + `,{"jsonrpc":"2.0","id":1,"error":null}]`, []string{ping, notRPC}, true},
	} {
		msgs, why, changed := goSDKLine([]byte(c.line))
		var got []string
		for _, m := range msgs {
			got = append(got, string(m))
		}
		if !slices.Equal(got, c.want) || changed != c.changed {
			t.Errorf("%s: got %q, %v (%s), want %q, %v", c.line, got, changed, why, c.want, c.changed)
		}
	}
}
