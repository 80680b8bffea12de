package mcpclient

import "testing"

// TestPlainResponse: only a response of exactly jsonrpc, id and result
// is read strictly; everything else (an error, a request, another
// member, a member name in another case, a duplicate, invalid UTF-8) is
// left to encoding/json, as before.
func TestPlainResponse(t *testing.T) {
	for _, tc := range []struct {
		line, id, result string
	}{
		{`{"jsonrpc":"2.0","id":"mcpctl-1","result":{"content":[]}}`, `"mcpctl-1"`, `{"content":[]}`},
		{` {"result" : null , "id":7} `, `7`, `null`},
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
