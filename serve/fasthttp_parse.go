package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
)

// fastMessage is a POST body the fast path reads: a tools/call request
// (params set), a notifications/cancelled (idKey names the request), or
// another request (sdkOnly).
type fastMessage struct {
	method string
	// id is the request's id as sent (tools/call); idKey the id of the
	// call (tools/call) or of the call cancelled, decoded (flightKey.id).
	id     json.RawMessage
	idKey  string
	params json.RawMessage
	// call is a tools/call's params as read (parseCall).
	call fastParams
	// sdkOnly marks any other request (another method, or a tools/call
	// go-sdk serves: a progress token, …).
	sdkOnly bool
}

// parseFastMessage parses body when it is one JSON-RPC 2.0 message of the
// plain shape the fast path takes; any other request with an id is
// sdkOnly (go-sdk serves it, its id held in flight meanwhile); anything
// else (a batch, invalid or non-strict JSON (canon.Parse: duplicate
// names, invalid UTF-8), unknown members, a notification other than
// cancelled) is false and goes to go-sdk, which answers it as it always
// has.
func parseFastMessage(body []byte) (fastMessage, bool) {
	return parseMessage(body, false)
}

// parseFastLine is parseFastMessage for a line transport, where a
// tools/call's _meta may carry the 2026-07-28 protocol version
// (prepareFast checks it as the go-sdk would).
func parseFastLine(line []byte) (fastMessage, bool) {
	return parseMessage(line, true)
}

// parseMessage is parseFastMessage, taking a tools/call whose _meta
// carries a protocol version when metaRevision is set.
func parseMessage(body []byte, metaRevision bool) (fastMessage, bool) {
	v, err := canon.Parse(body)
	if err != nil || v.Kind != canon.Object || !onlyMembers(&v, "jsonrpc", "id", "method", "params") {
		return fastMessage{}, false
	}
	if jv := v.Get("jsonrpc"); jv == nil || jv.Kind != canon.String || jv.Str != "2.0" {
		return fastMessage{}, false
	}
	method, params, id := v.Get("method"), v.Get("params"), v.Get("id")
	if method == nil || method.Kind != canon.String {
		return fastMessage{}, false
	}
	if method.Str == methodCancelled && params != nil {
		return parseCancel(id, params)
	}
	key, ok := idKey(id)
	if !ok {
		return fastMessage{}, false
	}
	if method.Str == "tools/call" && params != nil {
		if msg, ok := parseCall(body, id, params, metaRevision); ok {
			return msg, true
		}
	}
	return fastMessage{method: method.Str, idKey: key, sdkOnly: true}, true
}

// parseCall takes a tools/call whose params are a name, arguments (an
// object or null) and a _meta without progressToken, and without a
// protocol version unless metaRevision.
func parseCall(body []byte, id, params *canon.Value, metaRevision bool) (fastMessage, bool) {
	key, ok := idKey(id)
	if !ok || params.Kind != canon.Object || !onlyMembers(params, "name", "arguments", "_meta") {
		return fastMessage{}, false
	}
	name := params.Get("name")
	if name == nil || name.Kind != canon.String {
		return fastMessage{}, false
	}
	call := fastParams{Name: name.Str}
	if args := params.Get("arguments"); args != nil {
		if args.Kind != canon.Object && args.Kind != canon.Null {
			return fastMessage{}, false
		}
		call.Arguments, call.parsed = body[args.Start:args.End], args
	}
	if meta := params.Get("_meta"); meta != nil {
		if meta.Kind != canon.Object || meta.Get("progressToken") != nil || (!metaRevision && meta.Get(mcp.MetaKeyProtocolVersion) != nil) {
			return fastMessage{}, false
		}
		call.Meta = make(map[string]json.RawMessage, len(meta.Members))
		for _, m := range meta.Members {
			call.Meta[m.Key] = body[m.Value.Start:m.Value.End]
		}
	}
	return fastMessage{method: "tools/call", id: body[id.Start:id.End], idKey: key, params: body[params.Start:params.End], call: call}, true
}

// parseCancel takes a notifications/cancelled (no id) naming a request;
// its params may carry _meta, as every notification's may (MCP
// 2025-11-25 basic#meta).
func parseCancel(id, params *canon.Value) (fastMessage, bool) {
	if id != nil || params.Kind != canon.Object || !onlyMembers(params, "requestId", "reason", "_meta") {
		return fastMessage{}, false
	}
	key, ok := idKey(params.Get("requestId"))
	if !ok {
		return fastMessage{}, false
	}
	return fastMessage{method: methodCancelled, idKey: key}, true
}

// maxExactInt is 2^53, the largest integer a float64 holds exactly.
const maxExactInt = 1 << 53

// idKey is a request id's flightKey.id: a string, or an integer written
// without fraction or exponent.
func idKey(id *canon.Value) (string, bool) {
	if id == nil {
		return "", false
	}
	switch id.Kind {
	case canon.String:
		return "s" + id.Str, true
	case canon.Number:
		// go-sdk reads a number id as a float64 (jsonrpc.MakeID), so
		// only integers it reads exactly are taken.
		if n, err := strconv.ParseInt(id.Str, 10, 64); err == nil && n >= -maxExactInt && n <= maxExactInt {
			return "n" + strconv.FormatInt(n, 10), true
		}
	}
	return "", false
}

// onlyMembers reports whether every member of the object v is one of
// names.
func onlyMembers(v *canon.Value, names ...string) bool {
	for _, m := range v.Members {
		known := false
		for _, n := range names {
			known = known || m.Key == n
		}
		if !known {
			return false
		}
	}
	return true
}

// duplicateID answers a call whose id is already in flight on its session
// exactly as go-sdk does (400 with a JSON-RPC error).
func duplicateID(w http.ResponseWriter, key string) {
	id := keyID(key)
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
		Code: jsonrpc.CodeInvalidRequest, Message: fmt.Sprintf("duplicate in-flight request ID %v", id.Raw())}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// keyID is the id a flightKey.id names, as go-sdk decodes it.
func keyID(key string) jsonrpc.ID {
	var v any = key[1:]
	if key[0] == 'n' {
		n, _ := strconv.ParseInt(key[1:], 10, 64)
		v = float64(n) // as go-sdk decodes it
	}
	id, _ := jsonrpc.MakeID(v)
	return id
}
