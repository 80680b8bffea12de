package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/canon"
)

// The fast path forwards a tools/call to an upstream without the go-sdk
// decoding or encoding it on either hop (docs/gateway.md#the-fast-path):
// the request's params are read once with encoding/json, validated by
// callTool's own steps, and the upstream's result bytes become the
// response as they came (its _meta filtered as callMeta filters it).
// Everything it does not take goes to the go-sdk unchanged.

// fastParams is what the fast path reads of a tools/call's params.
type fastParams struct {
	Name      string                     `json:"name"`
	Arguments json.RawMessage            `json:"arguments"`
	Meta      map[string]json.RawMessage `json:"_meta"`
	// parsed, when set, is Arguments as the strict reader already parsed
	// them (parseMessage), so they are not parsed again to be checked.
	parsed *canon.Value
}

// fastCall is a tools/call the fast path took, its generation acquired
// and counted in flight until run returns.
type fastCall struct {
	s    *Server
	c    *toolCall
	fwd  *forwardHandler
	id   json.RawMessage
	meta map[string]json.RawMessage // the downstream _meta, as callMeta keeps it
	// serverInfo: the request selected 2026-07-28 by its _meta, so the
	// result's _meta gets the server's io.modelcontextprotocol/serverInfo
	// (as the go-sdk annotates it).
	serverInfo bool
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
	return s.fastParsed(ctx, ss, id, &p)
}

// fastParsed is FastCall given the params as read.
func (s *Server) fastParsed(ctx context.Context, ss *mcp.ServerSession, id json.RawMessage, p *fastParams) ([]byte, bool) {
	f := s.prepareFast(ss, id, p)
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
	msg, ok := parseFastMessage(body)
	if !ok || msg.sdkOnly || msg.method != "tools/call" {
		return nil, false
	}
	return s.fastSessionCall(ctx, sessionID, &msg)
}

// prepareFast takes the call when the fast path can answer it exactly as
// callTool would: a request of a session the fast path serves
// (fastRequest), no tracing, an id the go-sdk would echo as sent, no
// progress token, and a tool of the session's generation (pinned or live;
// not routed to blue by its shape) that an upstream serves as it is (not
// quarantined with a translator). nil: the go-sdk takes it.
func (s *Server) prepareFast(ss *mcp.ServerSession, id json.RawMessage, p *fastParams) *fastCall {
	if s.hooks.noFastCalls || s.tracing.on || p.Name == "" || !plainID(id) {
		return nil
	}
	if _, ok := p.Meta["progressToken"]; ok {
		return nil // relayed by the go-sdk path
	}
	serverInfo, ok := s.fastRequest(ss, p.Meta)
	if !ok {
		return nil
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
	return &fastCall{s: s, c: s.startCall(g, p.Name, p.Arguments).withParsed(p.parsed), fwd: fwd, id: id, meta: callMeta(p.Meta), serverInfo: serverInfo}
}

// fastRequest reports whether the fast path takes a request of ss with
// the given _meta (ok), and whether its result gets the server's
// io.modelcontextprotocol/serverInfo: a request without
// io.modelcontextprotocol/ keys of a session that initialized before
// 2026-07-28 (fastSession), or a 2026-07-28 request of a session at that
// revision whose keys the go-sdk accepts (sessionMeta).
func (s *Server) fastRequest(ss *mcp.ServerSession, meta map[string]json.RawMessage) (serverInfo, ok bool) {
	for k := range meta {
		if strings.HasPrefix(k, protocolMetaPrefix) {
			return true, sessionMeta(ss, meta)
		}
	}
	return false, s.fastSession(ss)
}

// sessionMeta reports whether a request's _meta selects 2026-07-28 for it
// as the go-sdk's validation accepts it (MCP 2026-07-28, SEP-2575: the
// protocolVersion, clientInfo and clientCapabilities keys), on a session
// already at that revision: protocolVersion is exactly "2026-07-28",
// clientInfo absent or an Implementation, clientCapabilities the
// capabilities object. Anything else, which the go-sdk may refuse, treat
// as an older request, or take to set the session's revision, is left to
// it.
func sessionMeta(ss *mcp.ServerSession, meta map[string]json.RawMessage) bool {
	var rev string
	if json.Unmarshal(meta[mcp.MetaKeyProtocolVersion], &rev) != nil || rev != protocolSessionless {
		return false
	}
	if p := ss.InitializeParams(); p == nil || p.ProtocolVersion != protocolSessionless {
		return false
	}
	if raw, ok := meta[mcp.MetaKeyClientInfo]; ok && !decodesObject(raw, new(mcp.Implementation)) {
		return false
	}
	var caps struct { // the go-sdk's clientCapabilitiesV2
		mcp.ClientCapabilities
		// A 2026-07-28 client may still declare roots; a malformed value
		// must be refused as the go-sdk refuses it.
		//lint:ignore SA1019 deprecated in 2026-07-28, still part of its capabilities
		Roots *mcp.RootCapabilities `json:"roots,omitempty"`
	}
	return decodesObject(meta[mcp.MetaKeyClientCapabilities], &caps)
}

// decodesObject reports whether raw is a JSON object that decodes into v.
func decodesObject(raw json.RawMessage, v any) bool {
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, v) == nil
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

// fastSession reports whether ss sent notifications/initialized at a
// revision before 2026-07-28 (a 2026-07-28 request is taken by its _meta:
// sessionMeta).
func (s *Server) fastSession(ss *mcp.ServerSession) bool {
	st := s.notifier.state(ss)
	if st == nil || !s.notifier.isInitialized(st) {
		return false
	}
	rev := st.revision.Load()
	return rev != nil && *rev < protocolSessionless
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
	raw, parsed, err := f.fwd.up.CallParsed(ctx, upstreamParams(f.fwd.tool, args, f.meta))
	m.latency.Observe(time.Since(start).Seconds())
	if err == nil {
		raw, err = f.result(raw, parsed, m)
	}
	if err != nil {
		return f.response(f.c.failed(ctx, t, m, err))
	}
	return f.rawResponse(raw)
}

// resultPeek is what the fast path reads of an upstream's result.
type resultPeek struct {
	Meta    map[string]json.RawMessage `json:"_meta"`
	Content *[]struct {
		Type string `json:"type"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// result is the upstream's result as the downstream gets it: unchanged
// unless its _meta holds keys callMeta drops or the server's serverInfo
// goes in. Its isError is counted. parsed, when set, is raw as already
// parsed (CallParsed); raw is parsed here otherwise. A result the strict
// parse refuses (a member twice, a lone surrogate, nesting deeper than
// canon.MaxDepth), or with a member name the go-sdk would read otherwise
// (one in another case), or a number beyond float64's range, gets the
// go-sdk path's answer (sdkResult): the go-sdk reads names exactly, the
// last of two alike winning, and numbers as float64.
func (f *fastCall) result(raw json.RawMessage, parsed *canon.Value, m *toolMeters) (json.RawMessage, error) {
	if parsed == nil {
		v, err := canon.Parse(raw)
		if err != nil {
			return f.sdkResult(raw, m)
		}
		parsed = &v
	}
	var peek resultPeek
	if !peekParsed(raw, parsed, &peek) || beyondFloat64(parsed) {
		return f.sdkResult(raw, m)
	}
	if peek.Content == nil {
		return f.sdkResult(raw, m)
	}
	for _, c := range *peek.Content {
		if !toolContentTypes[c.Type] {
			return f.sdkResult(raw, m)
		}
	}
	var err error
	switch {
	case len(peek.Meta) > 0:
		raw, err = f.withMeta(raw, f.resultMeta(callMeta(peek.Meta)))
	case f.serverInfo:
		raw, err = withFirstMember(raw, "_meta", f.resultMeta(nil))
	}
	if err != nil {
		return nil, err
	}
	m.outcome(peek.IsError)
	return raw, nil
}

// resultMeta is the result's _meta given the upstream's kept keys, with
// the server's serverInfo when the request asks for it (nil: no _meta).
func (f *fastCall) resultMeta(kept map[string]json.RawMessage) json.RawMessage {
	if f.serverInfo {
		if kept == nil {
			kept = map[string]json.RawMessage{}
		}
		kept[mcp.MetaKeyServerInfo] = f.s.serverInfo
	}
	if kept == nil {
		return nil
	}
	b, _ := json.Marshal(kept)
	return b
}

// withMeta is the result raw with its _meta replaced by meta (none when
// nil).
func (f *fastCall) withMeta(raw, meta json.RawMessage) (json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	delete(all, "_meta")
	if meta != nil {
		all["_meta"] = meta
	}
	return json.Marshal(all)
}

// errResultNotObject: an upstream's tools/call result that is not a JSON
// object, where the fast path must add a member.
var errResultNotObject = errors.New("the upstream's result is not a JSON object")

// withFirstMember is the JSON object raw, which has no member key, with
// key: value put first (where the go-sdk writes _meta).
func withFirstMember(raw json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	rest := bytes.TrimLeft(raw, " \t\r\n")
	if len(rest) == 0 || rest[0] != '{' {
		return nil, errResultNotObject
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	k, _ := json.Marshal(key)
	b := make([]byte, 0, len(raw)+len(k)+len(value)+3)
	b = append(append(append(append(b, '{'), k...), ':'), value...)
	if rest[0] != '}' {
		b = append(b, ',')
	}
	return append(b, rest...), nil
}

// toolContentTypes are the content block types of a CallToolResult (MCP
// 2025-11-25 server/tools#tool-result); a result with another goes the
// go-sdk path's way (sdkResult).
var toolContentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// sdkResult is a result the fast path does not pass on as it came (not an
// object, no content array, …) as the go-sdk path makes it: decoded by
// the go-sdk client's decoder (its error worded as the client words it),
// its _meta filtered, encoded again.
func (f *fastCall) sdkResult(raw json.RawMessage, m *toolMeters) (json.RawMessage, error) {
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	res.Meta = callMeta(res.Meta)
	if f.serverInfo {
		if res.Meta == nil {
			res.Meta = mcp.Meta{}
		}
		res.Meta[mcp.MetaKeyServerInfo] = json.RawMessage(f.s.serverInfo)
	}
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

// response is the JSON-RPC response carrying res (with the server's
// serverInfo in its _meta when the request asks for it).
func (f *fastCall) response(res *mcp.CallToolResult) []byte {
	if f.serverInfo {
		r := *res
		r.Meta = mcp.Meta{}
		for k, v := range res.Meta {
			r.Meta[k] = v
		}
		if _, ok := r.Meta[mcp.MetaKeyServerInfo]; !ok {
			r.Meta[mcp.MetaKeyServerInfo] = f.s.serverInfo
		}
		res = &r
	}
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

// peekParsed fills peek from the parsed result v (offsets into a text of
// which raw starts at v.Start) as the go-sdk reads it, and reports
// whether it did: false when v is not an object, or when a decoder might
// read it otherwise (a member name matching a field only in another case,
// a value of another type), which the caller then leaves to the go-sdk.
func peekParsed(raw json.RawMessage, v *canon.Value, peek *resultPeek) bool {
	if v == nil || v.Kind != canon.Object {
		return false
	}
	for i := range v.Members {
		m := &v.Members[i]
		ok := true
		switch m.Key {
		case "_meta":
			peek.Meta, ok = peekMeta(raw, v.Start, &m.Value)
		case "content":
			ok = peekContent(&m.Value, peek)
		case "isError":
			ok = m.Value.Kind == canon.Bool // null: the go-sdk drops it
			peek.IsError = m.Value.Bool
		default:
			ok = !foldsTo(m.Key, "_meta", "content", "isError")
		}
		if !ok {
			return false
		}
	}
	return true
}

// peekMeta is a result's _meta as a map of raw values; false when it is
// not an object (null too: the go-sdk drops it, a result passed on would
// keep it).
func peekMeta(raw json.RawMessage, base int, v *canon.Value) (map[string]json.RawMessage, bool) {
	if v.Kind != canon.Object {
		return nil, false
	}
	meta := make(map[string]json.RawMessage, len(v.Members))
	for _, m := range v.Members {
		meta[m.Key] = raw[m.Value.Start-base : m.Value.End-base]
	}
	return meta, true
}

// peekContent reads a result's content array of objects with a string
// type (or none); false for anything encoding/json might read otherwise.
func peekContent(v *canon.Value, peek *resultPeek) bool {
	if v.Kind == canon.Null {
		peek.Content = nil
		return true
	}
	if v.Kind != canon.Array {
		return false
	}
	content := make([]struct {
		Type string `json:"type"`
	}, len(v.Items))
	for i := range v.Items {
		item := &v.Items[i]
		if item.Kind != canon.Object {
			return false
		}
		for _, m := range item.Members {
			switch {
			case m.Key == "type" && m.Value.Kind == canon.String:
				content[i].Type = m.Value.Str
			case foldsTo(m.Key, "type"):
				return false
			}
		}
	}
	peek.Content = &content
	return true
}

// beyondFloat64 reports whether v holds a number beyond float64's range
// (1e400), which the go-sdk, reading numbers as float64, refuses. A
// number without an exponent shorter than 309 characters is within it.
func beyondFloat64(v *canon.Value) bool {
	switch v.Kind {
	case canon.Number:
		if len(v.Str) < 309 && !strings.ContainsAny(v.Str, "eE") {
			return false
		}
		_, err := strconv.ParseFloat(v.Str, 64)
		return err != nil
	case canon.Array:
		for i := range v.Items {
			if beyondFloat64(&v.Items[i]) {
				return true
			}
		}
	case canon.Object:
		for i := range v.Members {
			if beyondFloat64(&v.Members[i].Value) {
				return true
			}
		}
	}
	return false
}

// foldsTo reports whether key matches one of names as encoding/json
// matches a member to a field (case-insensitively).
func foldsTo(key string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}
