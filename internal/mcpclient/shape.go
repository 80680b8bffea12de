package mcpclient

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpctl/mcpctl/canon"
)

// readAsGoSDK reads msg as the go-sdk's decoder (jsonrpc.DecodeMessage)
// does: whether it decodes, whether it is a request (it has a method),
// and its id. A plain message is read by canon.Skim (and json.Valid
// below its top level), since the decoder allocates 32 KiB for each
// message; any other (a member named twice, an escaped name, an id other
// than a string or a short integer, an error response, ...) by the
// decoder itself.
func readAsGoSDK(msg []byte) (id jsonrpc.ID, request, ok bool) {
	v, err := canon.Skim(msg, 1)
	return readSkimmed(msg, v, err)
}

// readSkimmed is readAsGoSDK for msg as canon.Skim(msg, 1) read it (v,
// err).
func readSkimmed(msg []byte, v canon.Value, err error) (id jsonrpc.ID, request, ok bool) {
	if err == nil && skimmedValid(msg, v) {
		if id, request, ok := plainShape(msg, v); ok {
			return id, request, true
		}
	}
	m, err := jsonrpc.DecodeMessage(msg)
	switch m := m.(type) {
	case *jsonrpc.Request:
		return m.ID, true, err == nil
	case *jsonrpc.Response:
		return m.ID, false, err == nil
	}
	return jsonrpc.ID{}, false, false
}

// plainShape is readAsGoSDK for a message, v as canon.Skim read it, that
// the go-sdk's decoder certainly reads so: an object with
// "jsonrpc":"2.0", a request with a string method, or a response with an
// id (and, if any, an error with an integer code and a string message);
// its id a string or an integer of at most 15 digits (or, for a request,
// absent or null). ok false: not such a message.
func plainShape(msg []byte, v canon.Value) (id jsonrpc.ID, request, ok bool) {
	if v.Kind != canon.Object || !plainError(msg, v.Get("error")) {
		return jsonrpc.ID{}, false, false
	}
	if tag := v.Get("jsonrpc"); tag == nil || tag.Kind != canon.String || tag.Str != "2.0" {
		return jsonrpc.ID{}, false, false
	}
	method := v.Get("method")
	if method != nil && method.Kind != canon.String {
		return jsonrpc.ID{}, false, false
	}
	id, ok = shapeID(v.Get("id"), method != nil)
	return id, method != nil, ok
}

// shapeID is the go-sdk's id of v (nil: absent), when it is a string or
// a short integer, or, when null is allowed, absent or null.
func shapeID(v *canon.Value, nullOK bool) (jsonrpc.ID, bool) {
	var raw any
	switch {
	case v == nil || v.Kind == canon.Null:
		return jsonrpc.ID{}, nullOK
	case v.Kind == canon.String:
		raw = v.Str
	case v.Kind == canon.Number && len(v.Str) <= 15:
		n, err := strconv.ParseUint(v.Str, 10, 64)
		if err != nil {
			return jsonrpc.ID{}, false
		}
		raw = float64(n)
	default:
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(raw)
	return id, err == nil
}

// plainError reports whether e, a message's member "error" in msg (nil:
// absent), decodes as the go-sdk's error: an object whose code is an
// integer and message a string.
func plainError(msg []byte, e *canon.Value) bool {
	if e == nil {
		return true
	}
	if e.Kind != canon.Object {
		return false
	}
	v, err := canon.Skim(msg[e.Start:e.End], 1)
	if err != nil {
		return false
	}
	code, text := v.Get("code"), v.Get("message")
	if code == nil || code.Kind != canon.Number || text == nil || text.Kind != canon.String {
		return false
	}
	_, err = strconv.ParseInt(code.Str, 10, 64)
	return err == nil
}

// skimmedValid reports whether the values below v's top level (an
// object's; plainShape reads no other), which canon.Skim read only for
// their strings and brackets, are JSON (RFC 8259; json.Valid, which
// agrees with the go-sdk's decoder): that decoder refuses a message with
// a trailing comma, a raw tab in a string or an unknown escape at any
// depth, and over stdio ends the connection there.
func skimmedValid(msg []byte, v canon.Value) bool {
	for i := range v.Members {
		if m := &v.Members[i].Value; (m.Kind == canon.Object || m.Kind == canon.Array) && !json.Valid(msg[m.Start:m.End]) {
			return false
		}
	}
	return true
}

// notJSONWhat says what a message JSON at its top level only is;
// notJSONRPCWhat what a response the go-sdk cannot take as one is.
const (
	notJSONWhat    = "not valid JSON"
	notJSONRPCWhat = "not a valid JSON-RPC response"
)

// unreadable is what replaces msg, a message the go-sdk's client cannot
// take (readAsGoSDK refuses it, or emptyResponse), when it can still be
// answered: one that is JSON at its top level only (skimmedValid), or a
// JSON-RPC 2.0 response whose error is not an error object (badResponse):
// answer's error response to its request, or the request without its
// params; nil otherwise. why says what it was and what was done.
func unreadable(msg []byte) (repl []byte, why string) {
	v, err := canon.Skim(msg, 1)
	if err != nil || v.Kind != canon.Object {
		return nil, ""
	}
	what := notJSONWhat
	if skimmedValid(msg, v) {
		if !badResponse(&v) {
			return nil, ""
		}
		what = notJSONRPCWhat
	}
	repl, done := answer(msg, what)
	if repl == nil {
		return nil, ""
	}
	return repl, what + done
}

// badResponse reports whether v, a message's top level, is a JSON-RPC 2.0
// response (no method) with an error member: one the go-sdk refused to
// read ("error":5, a code that is a string), or null without a result
// (emptyResponse).
func badResponse(v *canon.Value) bool {
	tag := v.Get("jsonrpc")
	if v.Get("method") != nil || tag == nil || tag.Kind != canon.String || tag.Str != "2.0" {
		return false
	}
	return v.Get("error") != nil
}

// emptyResponse reports whether v, a message's top level, is a response
// whose error is null and which has no result: the go-sdk's decoder reads
// it, and its client then fails the call as if the connection had ended
// (it decodes no result).
func emptyResponse(v *canon.Value) bool {
	e := v.Get("error")
	return v.Kind == canon.Object && e != nil && e.Kind == canon.Null && v.Get("result") == nil && v.Get("method") == nil
}

// emptyIn is emptyResponse for msg, read only when it names "error"
// plainly (a message the go-sdk reads is rarely an error response).
func emptyIn(msg []byte) bool {
	if !bytes.Contains(msg, errorName) {
		return false
	}
	v, err := canon.Skim(msg, 1)
	return err == nil && emptyResponse(&v)
}

var errorName = []byte(`"error"`)
