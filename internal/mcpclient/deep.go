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
// an error response to the same request; a request (an id and a method)
// loses its params, so that the client answers it as it answers that
// method (the gateway's client declares no capabilities: ping and
// roots/list get their results, anything else an error) rather than leave
// the server waiting; anything else is dropped (repl nil), a batch too
// (the go-sdk reads none over streamable HTTP; see tooDeepLine for stdio).
// The error's message has no byte offset (why has): the offset depends on
// the request's id, which the gateway's two call paths choose differently.
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
		return batch(msg, v.Items), why + ", taken out of its batch (a response answered as an error, a request passed on without its params)", true
	}
	repl, done := answer(v, err, msg)
	return repl, why + done, true
}

var tooDeepWhat = fmt.Sprintf("nested deeper than %d levels", canon.MaxDepth)

// answer is what replaces msg, a message nested too deep that Skim read
// as v (or failed to, err): the error response to its request, or the
// request without its params; nil when msg is neither. done says which,
// for TooDeep's why.
func answer(v canon.Value, err error, msg []byte) (repl []byte, done string) {
	id := v.Get("id")
	if err != nil || id == nil || (id.Kind != canon.String && id.Kind != canon.Number) {
		return nil, ""
	}
	if m := v.Get("method"); m != nil {
		if m.Kind != canon.String {
			return nil, ""
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%s,"params":{}}`, msg[id.Start:id.End], msg[m.Start:m.End]), ", passed on without its params"
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's response is " + tooDeepWhat})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, msg[id.Start:id.End], e), ", answered to its request as an error"
}

// batch is the batch msg, its messages items, without those nested too
// deep within it (the batch is a level), each response or request among
// them replaced by its answer; nil when none is left (the go-sdk refuses
// an empty batch).
func batch(msg []byte, items []canon.Value) []byte {
	var out []byte
	for _, it := range items {
		m := msg[it.Start:it.End]
		if canon.DeeperThan(m, canon.MaxDepth-1) >= 0 {
			v, err := canon.Skim(m, 1)
			if m, _ = answer(v, err, m); m == nil {
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
