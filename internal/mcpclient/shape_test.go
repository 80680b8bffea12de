package mcpclient

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestReadAsGoSDKAgreesWithItsDecoder: readAsGoSDK, which reads plain
// messages without the go-sdk's decoder, reads every message as that
// decoder does (jsonrpc.DecodeMessage): decodes or not, request or
// response, and the id.
func TestReadAsGoSDKAgreesWithItsDecoder(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"","params":5}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1e2,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"","result":{}}`,
		`{"jsonrpc":"2.0","id":"a","result":null}`,
		`{"jsonrpc":"2.0","id":"\u0061","result":{}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":1e400,"result":{}}`,
		`{"jsonrpc":"2.0","id":123456789012345678901,"result":{}}`,
		`{"jsonrpc":"2.0","id":-1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":true,"result":{}}`,
		`{"jsonrpc":"2.0","id":{},"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x","data":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":5}}`,
		`{"jsonrpc":"2.0","id":1,"error":5}`,
		`{"jsonrpc":"2.0","id":1,"error":null,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2\u002e0","id":1,"result":{}}`,
		`{"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":5}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		`{"jsonrpc":"2.0","ID":2,"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}} x`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`5`, `null`, `{}`, `x`,
	} {
		id, request, ok := readAsGoSDK([]byte(msg))
		m, err := jsonrpc.DecodeMessage([]byte(msg))
		var wantID jsonrpc.ID
		var wantReq bool
		switch m := m.(type) {
		case *jsonrpc.Request:
			wantID, wantReq = m.ID, true
		case *jsonrpc.Response:
			wantID = m.ID
		}
		if ok != (err == nil) || (ok && (id != wantID || request != wantReq)) {
			t.Errorf("%s: read %v, %v, %v; the go-sdk's decoder %v, %v (%v)", msg, id, request, ok, wantID, wantReq, err)
		}
	}
}
