package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAdversarialFast2UpstreamResultNamesInAnotherCaseOrTwice: the
// go-sdk reads a tools/call result's members by their exact names, the
// last of two alike winning, and re-encodes what it read; the fast path
// passed a result with a member name in another case or twice on as it
// came, judged as encoding/json reads it (case-insensitively). Reproduction:
// the upstream answers
//
//	{"content":[…],"_meta":{"keep":1},"_META":{"progressToken":"t"}}
//
// the go-sdk path answers {"_meta":{"keep":1},"content":[…]}; the fast
// path passed "_META" on, the progressToken it must filter (callMeta)
// included, which a client decoding with encoding/json merges into
// _meta. Likewise "Content", "IsError", "iſError" (Unicode folding),
// "isError" twice, a content block's "type" twice or as "TYPE". Each such
// result now gets the go-sdk path's answer.
func TestAdversarialFast2UpstreamResultNamesInAnotherCaseOrTwice(t *testing.T) {
	t.Parallel()
	text := `"content":[{"type":"text","text":"x"}]`
	replies := []string{
		`{` + text + `,"_meta":{"keep":1},"_META":{"progressToken":"t"}}`,
		`{` + text + `,"_Meta":{"progressToken":"t","keep":2}}`,
		`{"content":[],"isError":false,"isError":true}`,
		`{"content":[],"isError":true,"isError":false}`,
		`{"content":[],"IsError":true}`,
		`{"content":[],"isError":false,"ISERROR":true}`,
		`{"content":[],"i\u017fError":true}`,
		`{"Content":[{"type":"text","text":"x"}]}`,
		`{"content":[{"type":"text","text":"a"}],"content":[{"type":"image","data":"","mimeType":"image/png"}]}`,
		`{"content":[{"type":"text","TYPE":"image","text":"x"}]}`,
		`{"content":[{"type":"text","type":"image","text":"x"}]}`,
		`{` + text + `,"_meta":{"keep":1,"keep":2}}`,
		// Held: exact names once each, passed on as they came.
		`{` + text + `,"\u0069sError":true}`,
		`{` + text + `,"isError":true,"_meta":{"keep":[1,2],"progressToken":"t"}}`,
	}
	sameThroughBothPaths(t, replies)
}

// sameJSON reports whether a and b decode to equal values.
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && cmp.Equal(va, vb)
}

// TestAdversarialFast2UpstreamResultNumberBeyondFloat64: the go-sdk reads
// a result's numbers as float64 (structuredContent, _meta, a block's
// annotations) and refuses one beyond its range; the strict parse keeps
// any number's text, so the fast path passed it on. Reproduction: the
// upstream answers {"content":[…],"structuredContent":{"n":1e400}}; the
// go-sdk path answers the client a tool error (cannot unmarshal 1e400),
// the fast path a result the client's own decoder then refuses. Such a
// result now gets the go-sdk path's answer; one that underflows (1e-400,
// read as 0) is still passed on.
func TestAdversarialFast2UpstreamResultNumberBeyondFloat64(t *testing.T) {
	t.Parallel()
	text := `"content":[{"type":"text","text":"x"}]`
	replies := []string{
		`{` + text + `,"structuredContent":{"n":1e400}}`,
		`{` + text + `,"structuredContent":{"a":[1,2,{"n":-1E+309}]}}`,
		`{` + text + `,"_meta":{"keep":1e400}}`,
		`{` + text + `,"_meta":{"progressToken":1e400}}`,
		`{"content":[{"type":"text","text":"x","annotations":{"priority":1e999}}]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true,"structuredContent":{"n":1` + strings.Repeat("0", 400) + `}}`,
		`{` + text + `,"structuredContent":{"n":1e-400,"m":1.7976931348623157e308}}`,
	}
	sameThroughBothPaths(t, replies)
}

// TestAdversarialFast2UpstreamResultNullMembers: a result with
// "isError":null or "_meta":null. The go-sdk reads null as absent and
// sends neither; the fast path passed them on, which a client validating
// the result's schema (isError a boolean, _meta an object: MCP 2025-11-25
// schema, CallToolResult) refuses. Reproduction: the upstream answers
// {"content":[],"isError":null}; the go-sdk path answers {"content":[]}.
// Such a result now gets the go-sdk path's answer.
func TestAdversarialFast2UpstreamResultNullMembers(t *testing.T) {
	t.Parallel()
	text := `"content":[{"type":"text","text":"x"}]`
	replies := []string{
		`{"content":[],"isError":null}`,
		`{` + text + `,"_meta":null}`,
		`{` + text + `,"_meta":null,"isError":null}`,
	}
	sameThroughBothPaths(t, replies)
}

// sameThroughBothPaths has the hostile upstream answer each of replies to
// a call through the go-sdk path and through the fast path, and fails t
// where the client's answers (as JSON values) or the call metrics differ.
func sameThroughBothPaths(t *testing.T, replies []string) {
	t.Helper()
	lines := replyLines(replies)
	slow, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, hostileUpstream)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	for i := range want {
		if want[i] != got[i] && !sameJSON(want[i], got[i]) {
			t.Errorf("upstream result %.200s:\n go-sdk path: %.300s\n fast path:   %.300s", replies[i], want[i], got[i])
		}
	}
	if diff := cmp.Diff(callMetrics(t, slow), callMetrics(t, fast)); diff != "" {
		t.Errorf("metrics differ (-go-sdk path +fast path):\n%s", diff)
	}
}

// TestAdversarialFast2UpstreamResultNestedTooDeep: an upstream result
// nested deeper than 1000 levels. Reproduction, over stdio: the upstream
// answers {"content":[…],"structuredContent":{"a":[[…1001 levels…]]}};
// the go-sdk path's decoder refused it and ended the upstream connection,
// so that call and the next (a result of one level) got "the server went
// away" and "unavailable (restarting)", while the fast path answered a
// tool error quoting the go-sdk's decoder and kept the connection. Now
// both answer "the server's response is nested deeper than 1000 levels"
// and the connection serves the next call, also after 20,000 levels
// (beyond encoding/json's own bound).
func TestAdversarialFast2UpstreamResultNestedTooDeep(t *testing.T) {
	t.Parallel()
	text := `"content":[{"type":"text","text":"x"}]`
	deep := func(levels int) string { return strings.Repeat("[", levels) + strings.Repeat("]", levels) }
	replies := []string{
		`{` + text + `,"structuredContent":{"a":` + deep(1000) + `}}`,
		`{` + text + `,"structuredContent":{"a":` + deep(997) + `}}`,
		`{` + text + `,"structuredContent":{"a":` + deep(20000) + `}}`,
		`{` + text + `}`,
	}
	sameThroughBothPaths(t, replies)
	fast, _ := startServer(t, probeGatewayConfig, hostileUpstream)
	got := sameAnswers(t, fast, replyLines(replies))
	if !strings.Contains(got[0], `nested deeper than 1000 levels"`) || !strings.Contains(got[2], `nested deeper than 1000 levels"`) {
		t.Errorf("answers to the results nested too deep: %.300s, %.300s", got[0], got[2])
	}
	for _, i := range []int{1, 3} {
		if strings.Contains(got[i], `"isError":true`) {
			t.Errorf("call %d after a result nested too deep: %.300s", i+1, got[i])
		}
	}
}

// TestAdversarialFast2UpstreamResultNotJSONBelowItsTop: a stdio
// upstream's response that is JSON at its top level only (a raw tab in a
// text, a trailing comma in structuredContent). Reproduction: the line
// went to the go-sdk, whose decoder refused it and ended the upstream
// connection ("the server went away during the call"); skipped, the call
// then waited for the upstream's timeout. Both paths now answer "the
// server's response is not valid JSON" and the connection serves the
// next call.
func TestAdversarialFast2UpstreamResultNotJSONBelowItsTop(t *testing.T) {
	t.Parallel()
	replies := []string{
		"{\"content\":[{\"type\":\"text\",\"text\":\"a\tb\"}]}",
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[1,]}}`,
		`{"content":[{"type":"text","text":"x"}]}`,
	}
	for _, noFast := range []bool{true, false} {
		s, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.noFastCalls = noFast })
		got := sameAnswers(t, s, replyLines(replies))
		for i := range 2 {
			if !strings.Contains(got[i], `the server's response is not valid JSON"`) {
				t.Errorf("go-sdk path %v: answer to the result %d, not JSON below its top: %.300s", noFast, i+1, got[i])
			}
		}
		if strings.Contains(got[2], `"isError":true`) {
			t.Errorf("go-sdk path %v: the call after them: %.300s", noFast, got[2])
		}
	}
}

// replyLines are the tools/call requests, one per reply, that have the
// hostile upstream answer each of replies.
func replyLines(replies []string) []string {
	var lines []string
	for i, r := range replies {
		args, _ := json.Marshal(map[string]string{"raw": r})
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"reply","arguments":%s}}`, i+1, args))
	}
	return lines
}

// TestAdversarialFast2UpstreamResponseInABatch: a stdio upstream that
// answers a call with a batch holding the response (JSON-RPC 2.0 §6; MCP
// 2025-03-26 allowed batches, and the go-sdk's client reads them over
// stdio at every revision). The go-sdk path answered the call; the fast
// path's call was not recognised in the batch, the go-sdk dropped a
// response to an id it never sent, and the call waited for the
// upstream's timeout.
func TestAdversarialFast2UpstreamResponseInABatch(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reply","arguments":{"batch":true,"raw":"{\"content\":[{\"type\":\"text\",\"text\":\"batched\"}]}"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"reply","arguments":{"raw":"{\"content\":[{\"type\":\"text\",\"text\":\"plain\"}]}"}}}`,
	}
	slow, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.noFastCalls = true })
	fast, _ := startServer(t, probeGatewayConfig, hostileUpstream)
	want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
	if !strings.Contains(want[0], `"batched"`) || !strings.Contains(want[1], `"plain"`) {
		t.Fatalf("go-sdk path answered %.300s, then %.300s", want[0], want[1])
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("call %d:\n go-sdk path: %.300s\n fast path:   %.300s", i+1, want[i], got[i])
		}
	}
}

// TestAdversarialFast2UpstreamErrorNotAnErrorObject: a stdio upstream
// answers a call with a JSON-RPC response whose error is not an error
// object ("error":5, a code that is a string). Reproduction: the go-sdk's
// decoder refuses such a line, so it was skipped, and the call, on
// either path, waited for the upstream's timeout (2s here) and got
// "timed out". Both paths now answer at once "the server's response is
// not a valid JSON-RPC response", and the connection serves the next
// call.
func TestAdversarialFast2UpstreamErrorNotAnErrorObject(t *testing.T) {
	t.Parallel()
	var lines []string
	for i, r := range []string{`5`, `{"code":"x","message":"m"}`, `{"code":1,"message":5}`, `null`} {
		args, _ := json.Marshal(map[string]any{"raw": r, "error": true})
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"reply","arguments":%s}}`, i+1, args))
	}
	lines = append(lines, replyLines([]string{`{"content":[{"type":"text","text":"x"}]}`})[0])
	for _, noFast := range []bool{true, false} {
		s, _ := startServer(t, probeGatewayConfig, hostileUpstream, func(o *testOptions) { o.noFastCalls = noFast })
		got := sameAnswers(t, s, lines)
		for i := range 4 {
			if !strings.Contains(got[i], `the server's response is not a valid JSON-RPC response"`) {
				t.Errorf("go-sdk path %v: answer to the error %d, not an error object: %.300s", noFast, i+1, got[i])
			}
		}
		if strings.Contains(got[4], `"isError":true`) || strings.Contains(got[4], `"error"`) {
			t.Errorf("go-sdk path %v: the call after them: %.300s", noFast, got[4])
		}
	}
}
