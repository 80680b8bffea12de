package mcpclient

import (
	"bytes"
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
// id and no method, read as the go-sdk reads them, at any depth:
// topMembers) becomes an error response to the same request; a request
// (an id and a method) loses its params, so that the client answers it
// as it answers that method (the gateway's client declares no
// capabilities: ping and roots/list get their results, anything else an
// error) rather than leave the server waiting; anything else is dropped
// (repl nil), a batch too (the go-sdk reads none over streamable HTTP;
// see tooDeepLine for stdio, AnswerBody for an HTTP body). The error's message has no byte offset (why
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
	if t := bytes.TrimSpace(msg); batches && len(t) > 0 && t[0] == '[' {
		if v, err := canon.Skim(msg, 1); err == nil {
			return batch(msg, v.Items), why + ": the batch kept without it (a response replaced by an error response, a request by the request without its params)", true
		}
	}
	repl, done := answer(msg, tooDeepWhat)
	return repl, why + done, true
}

// AnswerBody is what the go-sdk's client must read of msg, the whole
// JSON body of an HTTP response to the request whose id is id (as
// posted), for that request to be answered; nil when msg is that
// already. Without a request id (the go-sdk reads no body for a
// notification or a response) it is TooDeep's replacement. The go-sdk's
// client takes a body as one more message (jsonrpc.DecodeMessage: its
// first JSON value), not as the request's answer: another message than
// the response to id (a response to another id, a server request, a
// notification) left the request waiting for its timeout, and a body it
// cannot decode (a batch, invalid JSON, another JSON-RPC version) ended
// the session. Such a body becomes an error response to the request; a
// response to it nested too deep, TooDeep's replacement; one that is JSON
// at its top level only, or an error response the go-sdk cannot take,
// unreadable's. why says what was done, for a warning.
func AnswerBody(msg, id []byte) (repl []byte, why string) {
	want, ok := requestID(id)
	if !ok {
		repl, why, _ = TooDeep(msg)
		return repl, why
	}
	if repl, why, deep := TooDeep(msg); deep {
		if respondsTo(repl, want) {
			return repl, why
		}
		return tooDeepResponse(id), why + ": replaced by an error response to the request the body answers"
	}
	if respondsTo(msg, want) {
		return nil, ""
	}
	if repl, why := unreadable(msg); repl != nil && respondsTo(repl, want) {
		return repl, why
	}
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: notTheResponse})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e), notTheResponse + ": replaced by an error response to the request"
}

const notTheResponse = "the server answered the request with a body that is not its response"

// RespondsTo reports whether msg is the response to the request whose id
// is id (as posted), both read as the go-sdk's decoder reads them: an id
// written otherwise ("\u0061" for "a", 1.0 for 1) is the same id.
func RespondsTo(msg, id []byte) bool {
	want, ok := requestID(id)
	return ok && respondsTo(msg, want)
}

func respondsTo(msg []byte, id jsonrpc.ID) bool {
	got, request, ok := readAsGoSDK(msg)
	return ok && !request && got == id
}

// requestID is id, a request's id as posted, as the go-sdk reads it.
func requestID(id []byte) (jsonrpc.ID, bool) {
	if !plainID(id) {
		return jsonrpc.ID{}, false
	}
	want, _, ok := readAsGoSDK(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id))
	return want, ok
}

var tooDeepWhat = fmt.Sprintf("nested deeper than %d levels", canon.MaxDepth)

// answer is what replaces msg, a message the go-sdk cannot read because
// its params or result is what (nested too deep, not JSON): the error
// response to its request, or the request without its params; nil when
// msg is neither. done says which, for a warning's why.
func answer(msg []byte, what string) (repl []byte, done string) {
	id, method, ok := topMembers(msg)
	if !ok || !plainID(id) {
		return nil, ""
	}
	if method != nil {
		if method[0] != '"' {
			return nil, ""
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%s,"params":{}}`, id, method), ": replaced by the request without its params"
	}
	return errorResponse(id, what), ": replaced by an error response to its request"
}

// plainID reports whether id, a JSON value, is a request id: a string or
// a number (not null, as a response to no request carries).
func plainID(id []byte) bool {
	return len(id) > 0 && (id[0] == '"' || id[0] == '-' || ('0' <= id[0] && id[0] <= '9'))
}

// tooDeepResponse is the error response to the request id that stands
// for its response nested too deep.
func tooDeepResponse(id []byte) []byte { return errorResponse(id, tooDeepWhat) }

// errorResponse is the error response to the request id that stands for
// its response, which is what.
func errorResponse(id []byte, what string) []byte {
	e, _ := json.Marshal(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's response is " + what})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, id, e)
}

// topMembers returns the bytes of the members "id" and "method" of msg's
// top-level object (nil when absent), read by canon.Skim, which bounds no
// nesting; ok is false when msg is no object. Where Skim refuses what
// the go-sdk's decoder takes (a member named twice: the last counts; a
// string that is not UTF-8), they are read as that decoder reads them
// (lenientMembers).
func topMembers(msg []byte) (id, method []byte, ok bool) {
	v, err := canon.Skim(msg, 1)
	if err != nil {
		return lenientMembers(msg)
	}
	if v.Kind != canon.Object {
		return nil, nil, false
	}
	span := func(m *canon.Value) []byte {
		if m == nil {
			return nil
		}
		return msg[m.Start:m.End]
	}
	return span(v.Get("id")), span(v.Get("method")), true
}

// lenientMembers is topMembers through encoding/json's tokens, which
// bound no nesting either: the last of a member named twice, strings as
// they come.
func lenientMembers(msg []byte) (id, method []byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		start := dec.InputOffset()
		if err := skipValue(dec); err != nil {
			return nil, nil, false
		}
		value := bytes.TrimLeft(msg[start:dec.InputOffset()], " \t\r\n:")
		switch k {
		case "id":
			id = value
		case "method":
			method = value
		}
	}
	_, err := dec.Token() // the closing brace
	return id, method, err == nil && !dec.More()
}

// skipValue reads the next value of dec, token by token.
func skipValue(dec *json.Decoder) error {
	for depth := 0; ; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
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
			if m, _ = answer(m, tooDeepWhat); m == nil {
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
