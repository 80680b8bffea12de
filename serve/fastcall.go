package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path forwards a tools/call to an upstream without the go-sdk
// decoding or encoding it on either hop (docs/gateway.md#the-fast-path):
// the request's params are read once with encoding/json, validated by
// callTool's own steps, and the upstream's result bytes become the
// response as they came (its _meta filtered as callMeta filters it).
// Everything it does not take goes to the go-sdk unchanged.

// firstMultiRoundTripRevision is the MCP revision from which the go-sdk
// adds resultType to every result: the fast path leaves those sessions
// to it.
const firstMultiRoundTripRevision = "2026-07-28"

// fastParams is what the fast path reads of a tools/call's params.
type fastParams struct {
	Name      string                     `json:"name"`
	Arguments json.RawMessage            `json:"arguments"`
	Meta      map[string]json.RawMessage `json:"_meta"`
}

// fastCall is a tools/call the fast path took, its generation acquired
// and counted in flight until run returns.
type fastCall struct {
	s    *Server
	c    *toolCall
	fwd  *forwardHandler
	id   json.RawMessage
	meta map[string]json.RawMessage // the downstream _meta, as callMeta keeps it
}

// FastCall answers one tools/call request (its JSON-RPC id and params as
// sent) of session ss without the go-sdk, when the fast path takes it:
// it returns the JSON-RPC response (one line's bytes, without the
// newline) and true. With false nothing happened: hand the request to the
// go-sdk. It is the seam for transports that read requests themselves
// (stdio and in-memory here; streamable HTTP may call it too).
func (s *Server) FastCall(ctx context.Context, ss *mcp.ServerSession, id, params json.RawMessage) ([]byte, bool) {
	var p fastParams
	if json.Unmarshal(params, &p) != nil {
		return nil, false
	}
	f := s.prepareFast(ss, id, &p)
	if f == nil {
		return nil, false
	}
	return f.run(ctx), true
}

// FastCallBody is FastCall for a transport that holds one JSON-RPC
// message (body) of the session with the given Mcp-Session-Id (streamable
// HTTP, MCP 2025-11-25 basic/transports): it takes a single tools/call
// request the fast path accepts and returns its response; false for
// anything else (a batch, a notification, another method, an unknown
// session), which the go-sdk then handles unchanged.
func (s *Server) FastCallBody(ctx context.Context, sessionID string, body []byte) ([]byte, bool) {
	v, ok := s.notifier.byID.Load(sessionID)
	if !ok {
		return nil, false
	}
	msg, ok := parseFastMessage(body)
	if !ok || msg.sdkOnly || msg.method != "tools/call" {
		return nil, false
	}
	return s.FastCall(ctx, v.(*mcp.ServerSession), msg.id, msg.params)
}

// prepareFast takes the call when the fast path can answer it exactly as
// callTool would: an initialized session before 2026-07-28, no tracing,
// an id the go-sdk would echo as sent, no progress token nor
// io.modelcontextprotocol/ key in _meta, and a tool of
// the session's generation (pinned or live; not routed to blue by its
// shape) that an upstream serves as it is (not quarantined with a
// translator). nil: the go-sdk takes it.
func (s *Server) prepareFast(ss *mcp.ServerSession, id json.RawMessage, p *fastParams) *fastCall {
	if s.hooks.noFastCalls || s.tracing.on || p.Name == "" || !plainID(id) || !s.fastSession(ss) {
		return nil
	}
	for k := range p.Meta {
		// A progress token is relayed by the go-sdk path; the 2026-07-28
		// keys may select that revision for this request.
		if k == "progressToken" || strings.HasPrefix(k, protocolMetaPrefix) {
			return nil
		}
	}
	if s.pinning() {
		s.expireDue(ss)
	}
	if s.enterCall() != nil {
		return nil
	}
	g, routed := s.routeCall(ss, p.Name, p.Arguments)
	t, _ := g.lookup(p.Name)
	fwd := plainForward(t)
	if routed || fwd == nil {
		g.release()
		s.leaveCall()
		return nil
	}
	s.fastCalls.Add(1)
	return &fastCall{s: s, c: s.startCall(g, p.Name, p.Arguments), fwd: fwd, id: id, meta: callMeta(p.Meta)}
}

// plainForward is t's handler when it forwards calls to an upstream as
// they are (nil otherwise).
func plainForward(t *liveTool) *forwardHandler {
	if t == nil {
		return nil
	}
	fwd, ok := t.handler.(*forwardHandler)
	if !ok || fwd.tr != nil {
		return nil
	}
	return fwd
}

// fastSession reports whether ss initialized at a revision whose results
// the go-sdk sends as they are.
func (s *Server) fastSession(ss *mcp.ServerSession) bool {
	st := s.notifier.state(ss)
	if st == nil || !s.notifier.isInitialized(st) {
		return false
	}
	rev := st.revision.Load()
	return rev != nil && *rev < firstMultiRoundTripRevision
}

// plainID reports whether id is a JSON string or an integer written
// plainly: what the go-sdk echoes byte for byte.
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		// The go-sdk writes a string decoded and encoded again: an
		// escape, or U+2028/U+2029 (which encoding/json escapes), would
		// not come back as sent.
		return !bytes.ContainsRune(id, '\\') && !bytes.ContainsRune(id, '\u2028') && !bytes.ContainsRune(id, '\u2029')
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
		if string(digits) == "0" { // the go-sdk writes -0 as 0
			return false
		}
	}
	if len(digits) == 0 || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// run takes callTool's steps and returns the JSON-RPC response; a panic
// is answered as recoverMiddleware answers it.
func (f *fastCall) run(ctx context.Context) (resp []byte) {
	defer f.s.leaveCall()
	defer f.c.end()
	defer func() {
		if v := recover(); v != nil {
			resp = f.response(f.s.callPanic(v, f.c.name))
		}
	}()
	if f.s.hooks.beforeCall != nil {
		f.s.hooks.beforeCall(f.c.name)
	}
	t, _ := f.c.resolve() // prepareFast found it
	args, m, res := f.c.checkArgs(t)
	if res != nil {
		return f.response(res)
	}
	start := time.Now()
	raw, err := f.fwd.up.CallRaw(ctx, upstreamParams(f.fwd.tool, args, f.meta))
	m.latency.Observe(time.Since(start).Seconds())
	if err == nil {
		raw, err = f.result(raw, m)
	}
	if err != nil {
		return f.response(f.c.failed(ctx, t, m, err))
	}
	return f.rawResponse(raw)
}

// result is the upstream's result as the downstream gets it: unchanged
// unless its _meta holds keys callMeta drops. Its isError is counted.
func (f *fastCall) result(raw json.RawMessage, m *toolMeters) (json.RawMessage, error) {
	var peek struct {
		Meta    map[string]json.RawMessage `json:"_meta"`
		Content *[]struct {
			Type string `json:"type"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &peek) != nil || peek.Content == nil {
		return sdkResult(raw, m)
	}
	for _, c := range *peek.Content {
		if !toolContentTypes[c.Type] {
			return sdkResult(raw, m)
		}
	}
	if len(peek.Meta) > 0 {
		var all map[string]json.RawMessage
		if err := json.Unmarshal(raw, &all); err != nil {
			return nil, err
		}
		delete(all, "_meta")
		if kept := callMeta(peek.Meta); kept != nil {
			all["_meta"], _ = json.Marshal(kept)
		}
		var err error
		if raw, err = json.Marshal(all); err != nil {
			return nil, err
		}
	}
	m.outcome(peek.IsError)
	return raw, nil
}

// toolContentTypes are the content block types of a CallToolResult (MCP
// 2025-11-25 server/tools#tool-result); a result with another goes the
// go-sdk path's way (sdkResult).
var toolContentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// sdkResult is a result the fast path does not pass on as it came (not an
// object, no content array, …) as the go-sdk path makes it: decoded by
// the go-sdk client's decoder (its error worded as the client words it),
// its _meta filtered, encoded again.
func sdkResult(raw json.RawMessage, m *toolMeters) (json.RawMessage, error) {
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	res.Meta = callMeta(res.Meta)
	m.outcome(res.IsError)
	return json.Marshal(&res)
}

// upstreamParams are the params of the forwarded tools/call.
func upstreamParams(tool string, args []byte, meta map[string]json.RawMessage) []byte {
	name, _ := json.Marshal(tool)
	b := make([]byte, 0, len(name)+len(args)+40)
	b = append(b, `{"name":`...)
	b = append(b, name...)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	if len(meta) > 0 {
		mb, _ := json.Marshal(meta)
		b = append(b, `,"_meta":`...)
		b = append(b, mb...)
	}
	return append(b, '}')
}

// response is the JSON-RPC response carrying res.
func (f *fastCall) response(res *mcp.CallToolResult) []byte {
	b, err := json.Marshal(res)
	if err != nil { // a CallToolResult of text content always encodes
		b = []byte(`{"content":[],"isError":true}`)
	}
	return f.rawResponse(b)
}

// rawResponse is the JSON-RPC response carrying the result bytes.
func (f *fastCall) rawResponse(result []byte) []byte {
	b := make([]byte, 0, len(result)+len(f.id)+32)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, f.id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}
