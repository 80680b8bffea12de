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
// nil), a batch too (the go-sdk reads none over streamable HTTP; see
// tooDeepLine for stdio). The error's message has no byte offset (why
// has): the offset depends on the request's id, which the gateway's two
// call paths choose differently.
func TooDeep(msg []byte) (repl []byte, why string, deep bool) {
	return tooDeep(msg, false)
}

// tooDeepLine is TooDeep for a line of a stdio server, which may be a
// batch (JSON-RPC 2.0 §6): the go-sdk's client reads batches there, at
// every revision, and refuses one whole when a message in it is nested
// too deep. Such a batch keeps its other messages (see batch).
func tooDeepLine(msg []byte) (repl []byte, why string, deep bool) {
	return tooDeep(msg, true)
}

func tooDeep(msg []byte, batches bool) (repl []byte, why string, deep bool) {
	off := canon.DeeperThan(msg, canon.MaxDepth)
	if off < 0 {
		return nil, "", false
	}
	why = fmt.Sprintf("%s (byte offset %d)", tooDeepWhat, off)
	v, err := canon.Skim(msg, 1)
	if batches && err == nil && v.Kind == canon.Array {
		return batch(msg, v.Items), why + ", taken out of its batch, a response answered as an error", true
	}
	if repl = answer(v, err, msg); repl == nil {
		return nil, why, true
	}
	return repl, why + ", answered to its request as an error", true
}

var tooDeepWhat = fmt.Sprintf("nested deeper than %d levels", canon.MaxDepth)

// answer is the error response that replaces msg, a message nested too
// deep that Skim read as v (or failed to, err), or nil when msg is not a
// response.
func answer(v canon.Value, err error, msg []byte) []byte {
	id := v.Get("id")
	if err != nil || id == nil || (id.Kind != canon.String && id.Kind != canon.Number) || v.Has("method") {
		return nil
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's response is " + tooDeepWhat})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, msg[id.Start:id.End], e)
}

// batch is the batch msg, its messages items, without those nested too
// deep within it (the batch is a level), each response among them
// replaced by its answer; nil when none is left (the go-sdk refuses an
// empty batch).
func batch(msg []byte, items []canon.Value) []byte {
	var out []byte
	for _, it := range items {
		m := msg[it.Start:it.End]
		if canon.DeeperThan(m, canon.MaxDepth-1) >= 0 {
			v, err := canon.Skim(m, 1)
			if m = answer(v, err, m); m == nil {
				continue
			}
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	if out == nil {
		return nil
	}
	return append(append([]byte("["), out...), ']')
}
