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

// TestAdversarialGatewayUpstreamRequestNestedTooDeep: a stdio upstream
// that, during a call, sends the gateway a request (ping, roots/list,
// sampling/createMessage) whose params nest deeper than 1000 levels and
// waits for the answer before it answers the call. The gateway dropped
// the request, so the upstream waited, and the call got the upstream
// timeout's error on both call paths. Now the request reaches the
// gateway's client without its params, which answers it as it answers
// that method (ping and roots/list with their empty results, anything
// else with an error), and the call gets its result.
func TestAdversarialGatewayUpstreamRequestNestedTooDeep(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{"method":"ping"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{"method":"roots/list"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"method":"sampling/createMessage"}}}`,
	}
	for _, fast := range []bool{false, true} {
		s, _ := startServer(t, probeGatewayConfig, func(o *testOptions) {
			o.noFastCalls = !fast
			o.UpstreamBackoff = 10 * time.Millisecond
			o.upstreamPipe = func(string) func() (io.ReadWriteCloser, error) {
				return func() (io.ReadWriteCloser, error) {
					c, sc := net.Pipe()
					go serveAsking(sc)
					return c, nil
				}
			}
		})
		for i, got := range sameAnswers(t, s, lines) {
			if !strings.Contains(got, `"answered"`) {
				t.Errorf("fast path %v, call %d: %.300s", fast, i+1, got)
			}
		}
	}
}

// serveAsking is a stdio upstream whose tool "ask" sends the gateway a
// request of the method its argument names, with params nested 1001
// levels deep, and answers the call, with the text "answered", once the
// gateway has answered that request.
func serveAsking(c net.Conn) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(nil, 1<<20)
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	var call json.RawMessage // the call waiting for its request's answer
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct{ Method string } `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var out string
		switch m.Method {
		case "initialize":
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"asking","version":"1"}}}`, m.ID)
		case "tools/list":
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"ask","inputSchema":{"type":"object"}}]}}`, m.ID)
		case "tools/call":
			call = m.ID
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":"ask-1","method":%q,"params":{"a":%s}}`, m.Params.Arguments.Method, deep)
		case "":
			if string(m.ID) != `"ask-1"` || call == nil {
				continue
			}
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"answered"}]}}`, call)
			call = nil
		default:
			out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
		if _, err := io.WriteString(c, out+"\n"); err != nil {
			return
		}
	}
}
