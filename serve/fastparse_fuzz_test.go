package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzFastLine checks the fast path's strict reader against the go-sdk's
// own decoder (jsonrpc.DecodeMessage, which reads member names exactly): a
// line the fast path takes as a tools/call must be one the go-sdk decodes
// as a tools/call request with the same id and params, and the name and
// arguments the fast path forwards must be those params' own, as the
// go-sdk's decoder reads them (which "NAME", "Arguments" or a duplicate
// member would change). It must never panic on any line.
func FuzzFastLine(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":null,"_meta":{"k":1}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"meta","NAME":"echo"}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Read_File \u00e9","arguments":{"Path":"/x","path":"/y"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","name":"other"}}`,
		`{"jsonrpc":"2.0","id":"\u0041","method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"_meta":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo"}}]`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, ok := parseFastLine(line)
		if !ok || msg.sdkOnly || msg.method != "tools/call" {
			return
		}
		m, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("the fast path took a line the go-sdk refuses (%v): %s", err, line)
		}
		req, isReq := m.(*jsonrpc.Request)
		if !isReq || req.Method != "tools/call" {
			t.Fatalf("the fast path took as a tools/call what the go-sdk reads as %#v: %s", m, line)
		}
		if id := keyID(msg.idKey); id != req.ID {
			t.Fatalf("id %s (%v) read as %v by the go-sdk: %s", msg.id, id, req.ID, line)
		}
		if !jsonEqual(msg.params, req.Params) {
			t.Fatalf("params %s read as %s by the go-sdk: %s", msg.params, req.Params, line)
		}
		var sdk struct {
			Name      *string         `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		// The params are strict (exact, unique member names): a plain
		// decode reads them as the go-sdk's decoder does.
		if err := json.Unmarshal(req.Params, &sdk); err != nil || sdk.Name == nil || *sdk.Name != msg.call.Name {
			t.Fatalf("tool %q, the go-sdk's params say %s: %s", msg.call.Name, req.Params, line)
		}
		if len(sdk.Arguments) > 0 && !jsonEqual(sdk.Arguments, msg.call.Arguments) {
			t.Fatalf("arguments %s, the go-sdk's params say %s: %s", msg.call.Arguments, sdk.Arguments, line)
		}
	})
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
