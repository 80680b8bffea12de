package mcpclient

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpctl/mcpctl/canon"
)

// TooDeep guards the go-sdk against a message from a server that nests
// deeper than canon.MaxDepth: its decoder refuses more than 1000 levels,
// and a message it cannot decode ends the connection (over stdio) or the
// session (over streamable HTTP), every call under way included. deep
// reports whether msg is such a message; then repl is what the go-sdk
// reads instead and why says what was done, for a warning. A response (an
// id and no method, read by canon.Skim, which bounds no nesting) becomes
// an error response to the same request; anything else is dropped (repl
// nil). The error's message has no byte offset (why has): the offset
// depends on the request's id, which the gateway's two call paths choose
// differently.
func TooDeep(msg []byte) (repl []byte, why string, deep bool) {
	off := canon.DeeperThan(msg, canon.MaxDepth)
	if off < 0 {
		return nil, "", false
	}
	what := fmt.Sprintf("nested deeper than %d levels", canon.MaxDepth)
	why = fmt.Sprintf("%s (byte offset %d)", what, off)
	v, err := canon.Skim(msg, 1)
	id := v.Get("id")
	if err != nil || id == nil || (id.Kind != canon.String && id.Kind != canon.Number) || v.Has("method") {
		return nil, why, true
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's response is " + what})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, msg[id.Start:id.End], e), why + ", answered to its request as an error", true
}
