package mcpclient

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deepJSON is a JSON array nested levels deep.
func deepJSON(levels int) string {
	return strings.Repeat("[", levels) + strings.Repeat("]", levels)
}

// tooDeepError is the error response TooDeep answers request id with.
func tooDeepError(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"the server's response is nested deeper than 1000 levels"}}`
}

// TestAdversarialStdioMessageNestedTooDeep: a stdio server's message
// nested deeper than 1000 levels made the go-sdk's decoder fail, which
// ended the connection and every call on it; the gateway then restarted
// the upstream. Reproduction: the upstream answers a tools/call with
// {"content":[…],"structuredContent":{"a":[[[…1001 levels…]]]}}; the next
// call, to a result of one level, got "upstream unavailable (restarting)".
// Now a response nested too deep is answered to its request as an error,
// a request is passed on without its params (for the client to answer:
// TestAdversarialGatewayUpstreamRequestNestedTooDeep), any other such
// message is skipped, each with a warning, and the connection reads on. 20,000 levels, beyond encoding/json's own bound,
// and a string id are handled alike.
func TestAdversarialStdioMessageNestedTooDeep(t *testing.T) {
	t.Parallel()
	ok := `{"jsonrpc":"2.0","id":9,"result":{"a":` + deepJSON(998) + `}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"a":` + deepJSON(1000) + `}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":` + deepJSON(1000) + `}}`,
		`{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"a":` + deepJSON(1000) + `}}`,
		`{"result":{"a":` + deepJSON(20000) + `},"id":"r-1","jsonrpc":"2.0"}`,
	}
	in := strings.Join(append(lines, ok), "\n") + "\n"
	// Each opens two objects, then arrays: level 1001 is the 999th '['.
	var wantWhy []string
	for i, l := range lines {
		why := fmt.Sprintf("nested deeper than 1000 levels (byte offset %d)", strings.Index(l, "[")+998)
		switch i {
		case 0, 3:
			why += ": replaced by an error response to its request"
		case 2:
			why += ": replaced by the request without its params"
		}
		wantWhy = append(wantWhy, why)
	}
	var whys []string
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(in)), warn: func(_, why string) { whys = append(whys, why) }}
	got, err := io.ReadAll(j)
	if err != nil {
		t.Fatal(err)
	}
	want := tooDeepError("7") + "\n" + `{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{}}` + "\n" + tooDeepError(`"r-1"`) + "\n" + ok + "\n"
	if string(got) != want {
		t.Errorf("the go-sdk read\n%.400s\nwant\n%.400s", got, want)
	}
	if d := cmp.Diff(wantWhy, whys); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// TestAdversarialHTTPMessageNestedTooDeep: the same over streamable
// HTTP, where the go-sdk's client failed the session on an SSE event or
// a JSON body it could not decode. An event's other lines (its id, for
// resuming the stream) are kept; a dropped message leaves an event
// without data, which the go-sdk skips.
func TestAdversarialHTTPMessageNestedTooDeep(t *testing.T) {
	t.Parallel()
	deepResp := `{"jsonrpc":"2.0","id":5,"result":{"a":` + deepJSON(1000) + `}}`
	deepNote := `{"jsonrpc":"2.0","method":"notifications/message","params":{"a":` + deepJSON(1000) + `}}`
	plain := "event: message\r\nid: 7\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":6,\r\ndata: \"result\":{}}\r\n\r\n"
	stream := "id: 5\ndata: " + deepResp + "\n\n" + ": ping\nid: 6\ndata: " + deepNote + "\n\n" + plain
	want := "id: 5\ndata: " + tooDeepError("5") + "\n\n" + ": ping\nid: 6\n\n" + plain
	for _, n := range []int{1, 7, 1 << 20} {
		b := &tapBody{ReadCloser: io.NopCloser(&chunked{s: stream, n: n}), c: newCapture()}
		got, err := io.ReadAll(b)
		if err != nil || string(got) != want {
			t.Errorf("SSE in reads of %d: the go-sdk read (%v)\n%.300q\nwant\n%.300q", n, err, got, want)
		}
	}
	for body, want := range map[string]string{deepResp: tooDeepError("5"), deepNote: deepNote, `{"jsonrpc":"2.0","id":1,"result":{}}`: `{"jsonrpc":"2.0","id":1,"result":{}}`} {
		b := &tapBody{ReadCloser: io.NopCloser(&chunked{s: body, n: 100}), c: newCapture(), json: true}
		got, err := io.ReadAll(b)
		if err != nil || string(got) != want {
			t.Errorf("JSON body %.60s…: the go-sdk read %.80s (%v), want %.80s", body, got, err, want)
		}
	}
}

// TestAdversarialHTTPLastEventNestedTooDeepUnterminated: the go-sdk's
// SSE reader dispatches the event a stream ends in even when no blank
// line ends it (and reads a last line that has no newline), but tapBody
// passed such an event on as it came, not through TooDeep. Reproduction:
// an upstream answers a POST with "id: 5\ndata: {…"id":5,"result":{"a":
// [[…1001 levels…]]}}\n" and ends the body; the go-sdk failed the session
// ("failed to decode event: … exceeded maximum nesting depth of 1000").
// Now that event is answered as an error too; a shallow one still passes
// as it came.
func TestAdversarialHTTPLastEventNestedTooDeepUnterminated(t *testing.T) {
	t.Parallel()
	deepResp := `{"jsonrpc":"2.0","id":5,"result":{"a":` + deepJSON(1000) + `}}`
	shallow := `{"jsonrpc":"2.0","id":6,"result":{}}`
	for stream, want := range map[string]string{
		"id: 5\ndata: " + deepResp + "\n":                   "id: 5\ndata: " + tooDeepError("5") + "\n",
		"id: 5\r\ndata: " + deepResp:                        "id: 5\r\ndata: " + tooDeepError("5") + "\n",
		"data:" + deepResp[:17] + "\ndata:" + deepResp[17:]: "data: " + tooDeepError("5") + "\n",
		"data: " + shallow + "\n":                           "data: " + shallow + "\n",
		"data: " + shallow:                                  "data: " + shallow,
		": ping\n\nid: 7":                                   ": ping\n\nid: 7",
	} {
		for _, n := range []int{1, 5, 1 << 20} {
			b := &tapBody{ReadCloser: io.NopCloser(&chunked{s: stream, n: n}), c: newCapture()}
			got, err := io.ReadAll(b)
			if err != nil || string(got) != want {
				t.Errorf("%.40q… in reads of %d: the go-sdk read (%v)\n%.200q\nwant\n%.200q", stream, n, err, got, want)
			}
		}
	}
}

// TestAdversarialStdioBatchNestedTooDeep: a stdio server may answer in a
// JSON-RPC batch (JSON-RPC 2.0 §6; the go-sdk's client reads batches at
// every revision). The go-sdk refuses the whole batch when one of its
// messages is nested 1000 levels deep (1001 with the batch), and TooDeep
// dropped the whole batch, so the other responses in it were lost: their
// calls waited for the upstream timeout. Reproduction:
//
//	[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"a":[[…998 levels…]]}}]
//
// Now only the messages nested too deep are taken out of the batch, a
// response among them answered as an error; a batch of none is dropped.
func TestAdversarialStdioBatchNestedTooDeep(t *testing.T) {
	t.Parallel()
	ok := `{"jsonrpc":"2.0","id":1,"result":{}}`
	deepResp := `{"jsonrpc":"2.0","id":2,"result":{"a":` + deepJSON(998) + `}}`
	deepNote := `{"jsonrpc":"2.0","method":"notifications/message","params":{"a":` + deepJSON(998) + `}}`
	shallow := `{"jsonrpc":"2.0","id":3,"result":{"a":` + deepJSON(997) + `}}`
	for batch, want := range map[string]string{
		"[" + ok + "," + deepResp + "]":                                           "[" + ok + "," + tooDeepError("2") + "]",
		"[ " + deepNote + " , " + ok + " ,\t" + shallow + " ]":                    "[" + ok + "," + shallow + "]",
		"[" + deepNote + "]":                                                      "",
		"[" + deepResp + "," + deepNote + "]":                                     "[" + tooDeepError("2") + "]",
		"[" + ok + "," + deepResp[:len(deepResp)-1]:                               "",
		"[" + strings.Replace(deepNote, `"method"`, `"id":"q","method"`, 1) + "]": "[" + `{"jsonrpc":"2.0","id":"q","method":"notifications/message","params":{}}` + "]",
	} {
		repl, why, deep := tooDeepLine([]byte(batch))
		if !deep || string(repl) != want {
			t.Errorf("tooDeepLine(%.80s…) = %v, %.200s, want %.200s (%s)", batch, deep, repl, want, why)
		}
		// Over streamable HTTP the go-sdk reads no batch: it is dropped.
		if repl, _, deep := TooDeep([]byte(batch)); !deep || repl != nil {
			t.Errorf("TooDeep(%.80s…) = %v, %.200s, want it dropped", batch, deep, repl)
		}
	}
	line := "[" + ok + "," + deepResp + "]\n"
	j := &jsonLines{r: bufio.NewReader(strings.NewReader(line)), warn: func(_, _ string) {}}
	if got, err := io.ReadAll(j); err != nil || string(got) != "["+ok+","+tooDeepError("2")+"]\n" {
		t.Errorf("the go-sdk read %.200s (%v)", got, err)
	}
}

// TestAdversarialResponseNestedTooDeepReadAsTheGoSDK: TooDeep read a
// message's id with canon.Skim, which refuses what the go-sdk's decoder
// takes: a member named twice (the go-sdk keeps the last), a string that
// is not UTF-8 or holds a lone surrogate. Such a response nested too deep
// was dropped, not answered, so its call waited for the upstream timeout
// (and a JSON body reached the go-sdk whole, which failed the session).
// Reproduction: {"jsonrpc":"2.0","id":1,"id":7,"result":{"a":[[…1001
// levels…]]}}. Now each is answered to the id the go-sdk reads, at any
// depth.
func TestAdversarialResponseNestedTooDeepReadAsTheGoSDK(t *testing.T) {
	t.Parallel()
	for _, levels := range []int{1000, 20000} {
		deep := deepJSON(levels)
		for msg, want := range map[string]string{
			`{"jsonrpc":"2.0","id":1,"id":7,"result":{"a":` + deep + `}}`:                          tooDeepError("7"),
			`{"jsonrpc":"2.0","id":8,"result":{"a":` + deep + `},"x":"\ud800"}`:                    tooDeepError("8"),
			"{\"jsonrpc\":\"2.0\",\"_\":\"\xff\",\"id\":\"r\",\"result\":{\"a\":" + deep + "}}":    tooDeepError(`"r"`),
			`{"jsonrpc":"2.0","id":9,"method":"ping","method":"roots/list","params":` + deep + `}`: `{"jsonrpc":"2.0","id":9,"method":"roots/list","params":{}}`,
			`{"jsonrpc":"2.0","id":9,"id":{},"result":{"a":` + deep + `}}`:                         "",
			`{"jsonrpc":"2.0","id":1,"id":7,"result":{"a":` + deep + `}`:                           "",
		} {
			repl, why, deep := TooDeep([]byte(msg))
			if !deep || string(repl) != want {
				t.Errorf("%d levels: TooDeep(%.70q…) = %v, %.200s, want %.200s (%s)", levels, msg, deep, repl, want, why)
			}
		}
	}
}

// TestAnswerBodyAnswersTheRequest: a JSON body that is not the response
// to the request it answers, as the go-sdk's client reads it, becomes the
// error response to that request: nested too deep (neither a response
// nor a request, a response to another request, a request), or not (a
// response to another request, a request, a batch, not JSON)
// (TestAdversarialGatewayHTTPBodyNestedTooDeepNotAResponse and
// TestAdversarialGatewayHTTPBodyNotTheResponse in serve are the gateway's
// reproductions). Without a request id nothing is replaced, and neither
// is the response (a number id read as the go-sdk reads it, more bytes
// after it).
func TestAnswerBodyAnswersTheRequest(t *testing.T) {
	t.Parallel()
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":` + deepJSON(1000) + `}}`
	nullID := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x","data":` + deepJSON(1000) + `}}`
	notIt := `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the server answered the request with a body that is not its response"}}`
	for _, c := range []struct{ name, msg, id, want string }{
		{"notification, numeric id", note, `7`, tooDeepError(`7`)},
		{"null id, string id", nullID, `"mcpctl-x-1"`, tooDeepError(`"mcpctl-x-1"`)},
		{"no request id", note, ``, ``},
		{"null request id", note, `null`, ``},
		{"deep response to another request", `{"jsonrpc":"2.0","id":3,"result":` + deepJSON(1000) + `}`, `7`, tooDeepError(`7`)},
		{"deep response", `{"jsonrpc":"2.0","id":7,"result":` + deepJSON(1000) + `}`, `7`, tooDeepError(`7`)},
		{"deep request", `{"jsonrpc":"2.0","id":7,"method":"ping","params":` + deepJSON(1000) + `}`, `7`, tooDeepError(`7`)},
		{"within the bound", `{"jsonrpc":"2.0","id":7,"result":` + deepJSON(998) + `}`, `7`, ``},
		{"number id written otherwise, more bytes", `{"jsonrpc":"2.0","id":7.0,"result":{}} x`, `7`, ``},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a","result":{}}`, `"a"`, ``},
		{"response to another request", `{"jsonrpc":"2.0","id":3,"result":{}}`, `7`, notIt},
		{"request", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `7`, notIt},
		{"batch", `[{"jsonrpc":"2.0","id":7,"result":{}}]`, `7`, notIt},
		{"not JSON", `hello`, `7`, notIt},
	} {
		if repl, why := AnswerBody([]byte(c.msg), []byte(c.id)); string(repl) != c.want {
			t.Errorf("%s: got %q (%s), want %q", c.name, repl, why, c.want)
		}
	}
}
