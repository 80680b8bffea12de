package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestAdversarialFast2UpstreamBatchTheGoSDKRefuses: a stdio upstream that
// answers a call in a batch the go-sdk's client refuses whole (its stdio
// transport reads a batch only when every message in it decodes and no
// two requests, notifications included, share an id), or with more after
// the line's message. The go-sdk path's connection ended: the call got
// "the server went away" and the next one "unavailable (restarting)".
// The fast path took its response out of the batch first, so the call was
// answered, and the rest ended the connection; after a message followed
// by more, the call waited for the upstream's timeout ("no answer within
// 2s": the go-sdk, which had stopped reading, closed the connection, but
// the raw calls ended only at the end of the server's output). A line
// starting with U+00A0 (white space, but not JSON's) ended the go-sdk
// path's connection and answered the fast path's call; a space after
// the response ended it too. Now such a batch, and a line holding more
// than one value, is split into the messages the go-sdk reads (both
// paths answer the call and keep the connection), white space after a
// message is dropped, the raw calls end when the connection is closed,
// and a line starting with other white space than JSON's is skipped on
// both paths (it is not JSON-RPC): both paths answer alike.
func TestAdversarialFast2UpstreamBatchTheGoSDKRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line     string
		answered bool // the call gets its response
	}{
		{`[R,5]`, true},
		{`[R,{}]`, true},
		{`[R,{"jsonrpc":"1.0","method":"x"}]`, true},
		{`[R,{"jsonrpc":"2.0","id":null,"result":{}}]`, true},
		{`[R,{"jsonrpc":"2.0","id":"p","method":"ping"},{"jsonrpc":"2.0","id":"p","method":"ping"}]`, true},
		{`[R,{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","method":"notifications/message","params":{}}]`, true},
		{`[R] x`, true},
		{`[R] []`, true},
		{`R 5`, true},
		{`R `, true},
		{"\u00a0R", false},
		{"\u00a0[R]", false},
		// Read alike before too.
		{`[R,{"jsonrpc":"2.0","id":"p","method":"ping"}]`, true},
		{`[{"jsonrpc":"2.0","id":"p","method":"roots/list"},R]`, true},
		{`[R,R]`, true},
		{`[[R]]`, false},
	} {
		t.Run(fmt.Sprintf("%q", c.line), func(t *testing.T) {
			t.Parallel()
			up := lineUpstream(func(id json.RawMessage, method, result string) string {
				resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if method != "tools/call" || !strings.Contains(result, `"first"`) {
					return resp
				}
				return strings.ReplaceAll(c.line, "R", resp)
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"first"}]}`, `{"content":[{"type":"text","text":"next"}]}`})
			slow, _ := startServer(t, probeGatewayConfig, up, func(o *testOptions) { o.noFastCalls = true })
			fast, _ := startServer(t, probeGatewayConfig, up)
			want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
			for i := range want {
				if want[i] != got[i] {
					t.Errorf("call %d:\n go-sdk path: %.300s\n fast path:   %.300s", i+1, want[i], got[i])
				}
			}
			if c.answered && (!strings.Contains(want[0], `"first"`) || !strings.Contains(want[1], `"next"`)) {
				t.Errorf("answers %.300s, then %.300s", want[0], want[1])
			}
		})
	}
}

// TestAdversarialGatewayStdioLineNotAMessage: a stdio upstream that
// writes, before a call's response, a line of JSON the go-sdk's decoder
// refuses: a JSON log line (servers whose logging library writes to
// standard output), a response with a null id (a server's answer to a
// line it could not parse), an error that is not an error object, an
// empty object or batch, a line that is not JSON but starts as JSON. The go-sdk's stdio transport ended the
// connection: the go-sdk path's call got "the server went away", and
// the next call on either path "unavailable (restarting)". Now such a
// line is skipped with a warning, as a line that is not JSON-RPC is:
// both paths answer both calls.
func TestAdversarialGatewayStdioLineNotAMessage(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"level":"info","msg":"started"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"error":5}`,
		`{}`,
		`[]`,
		`{oops`,
		// Not JSON below the top level, which a skim does not read.
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":[1,]}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"a\tb\"}}",
		`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\U0041"}}]`,
	} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			up := lineUpstream(func(id json.RawMessage, method, result string) string {
				resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if method != "tools/call" || !strings.Contains(result, `"first"`) {
					return resp
				}
				return line + "\n" + resp
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"first"}]}`, `{"content":[{"type":"text","text":"next"}]}`})
			for _, noFast := range []bool{true, false} {
				s, _ := startServer(t, probeGatewayConfig, up, func(o *testOptions) { o.noFastCalls = noFast })
				got := sameAnswers(t, s, lines)
				if !strings.Contains(got[0], `"first"`) || !strings.Contains(got[1], `"next"`) {
					t.Errorf("go-sdk path %v: answers %.300s, then %.300s", noFast, got[0], got[1])
				}
			}
		})
	}
}

// lineUpstream is a stdio upstream written by hand (MCP 2025-03-26, whose
// batches the go-sdk's client reads): it answers each request with the
// line line(id, method, result), result the request's result (a
// tools/call's is its argument "raw").
func lineUpstream(line func(id json.RawMessage, method, result string) string) func(*testOptions) {
	return func(o *testOptions) {
		o.UpstreamBackoff = 10 * time.Millisecond
		o.upstreamPipe = func(string) func() (io.ReadWriteCloser, error) {
			return func() (io.ReadWriteCloser, error) {
				c, sc := net.Pipe()
				go serveLines(sc, line)
				return c, nil
			}
		}
	}
}

func serveLines(c net.Conn, line func(id json.RawMessage, method, result string) string) {
	defer c.Close()
	s := bufio.NewScanner(c)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var m handRequest
		if json.Unmarshal(s.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		result := m.result("2025-03-26", "lines")
		if _, err := io.WriteString(c, line(m.ID, m.Method, result)+"\n"); err != nil {
			return
		}
	}
}

// TestAdversarialFast2UpstreamResponseIDWrittenOtherwise: the stdio side
// of TestAdversarialGatewayHTTPResponseIDWrittenOtherwise. A stdio
// upstream that writes the call's id escaped ("mcpctl\u002d…", the fast
// path's ids) or with a fraction (1.0, the go-sdk's): the go-sdk path
// answered the call; the fast path looked for its ids' bytes, did not
// take the response, and the call waited for the upstream's timeout
// ("no answer within 2s"). Alone, in a batch.
func TestAdversarialFast2UpstreamResponseIDWrittenOtherwise(t *testing.T) {
	t.Parallel()
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprint("batch ", batch), func(t *testing.T) {
			t.Parallel()
			up := lineUpstream(func(id json.RawMessage, method, result string) string {
				if method == "tools/call" {
					id = otherwiseWritten(id)
				}
				resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
				if batch && method == "tools/call" {
					return "[" + resp + "]"
				}
				return resp
			})
			lines := replyLines([]string{`{"content":[{"type":"text","text":"answered"}]}`})
			slow, _ := startServer(t, probeGatewayConfig, up, func(o *testOptions) { o.noFastCalls = true })
			fast, _ := startServer(t, probeGatewayConfig, up)
			want, got := sameAnswers(t, slow, lines), sameAnswers(t, fast, lines)
			if !strings.Contains(want[0], `"answered"`) || got[0] != want[0] {
				t.Errorf("go-sdk path: %.300s\nfast path:   %.300s", want[0], got[0])
			}
		})
	}
}
