package serve

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GenerationMetaKey is the _meta key of every tools/list result:
// {"version": N, "fingerprint": "…"} of the generation it lists.
const GenerationMetaKey = "io.mcpctl/generation"

// receivingMiddleware answers tools/list and tools/call from the live
// generation and tracks the session lifecycle; everything else goes to the
// SDK.
func (s *Server) receivingMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, _ := req.GetSession().(*mcp.ServerSession)
		if ss != nil && s.pinning() {
			s.expireDue(ss)
		}
		switch method {
		case "tools/list":
			r, ok := req.(*mcp.ListToolsRequest)
			if !ok || ss == nil {
				break
			}
			return s.listTools(ss, r)
		case "tools/call":
			r, ok := req.(*mcp.CallToolRequest)
			if !ok || ss == nil {
				break
			}
			if s.hooks.beforeCall != nil {
				s.hooks.beforeCall(r.Params.Name)
			}
			ctx, stop := withPost(ctx)
			defer stop()
			return s.tracing.call(ctx, ss, r, func(ctx context.Context) (mcp.Result, error) { return s.callTool(ctx, ss, r) })
		case "initialize":
			if ss != nil {
				extra := req.GetExtra()
				s.notifier.begin(ss, extra != nil && extra.Header != nil)
				res, err := next(ctx, method, req)
				if err == nil {
					s.noteRevision(ss, res)
					s.assignSide(ss)
					s.pinSession(ss)
				}
				return res, err
			}
		case "notifications/initialized":
			res, err := next(ctx, method, req)
			if ss != nil && err == nil {
				s.notifier.initialized(ss)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// listResult is a tools/list result rendered from one generation's served
// bytes, so every tool keeps its source member order.
type listResult struct {
	mcp.ResultBase
	gen         *Generation
	sessionless bool
	// cache keeps the rendering of the latest generation listed (when
	// nothing is added to _meta, the usual case): tools/list then costs no
	// rendering at all.
	cache *atomic.Pointer[renderedList]
}

// renderedList is a listResult's JSON for one generation.
type renderedList struct {
	gen  *Generation
	json []byte
}

// MarshalJSON writes {"_meta":…,"ttlMs":0,"cacheScope":"public","tools":[…]}
// (plus "resultType":"complete" for the 2026-07-28 revision). The bytes
// may be shared: callers must not modify them (encoding/json copies them).
func (r *listResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) > 0 || r.cache == nil {
		return r.render()
	}
	if c := r.cache.Load(); c != nil && c.gen == r.gen {
		return c.json, nil
	}
	b, err := r.render()
	if err == nil {
		r.cache.Store(&renderedList{gen: r.gen, json: b})
	}
	return b, err
}

// render writes the result (see MarshalJSON).
func (r *listResult) render() ([]byte, error) {
	meta := map[string]any{}
	for k, v := range r.Meta {
		meta[k] = v
	}
	meta[GenerationMetaKey] = map[string]any{"version": r.gen.Version, "fingerprint": r.gen.Fingerprint}
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, len(r.gen.toolsJSON)+len(mb)+96)
	buf = append(buf, `{"_meta":`...)
	buf = append(buf, mb...)
	if r.sessionless {
		buf = append(buf, `,"resultType":"complete"`...)
	}
	buf = append(buf, `,"ttlMs":0,"cacheScope":"public","tools":`...)
	buf = append(buf, r.gen.toolsJSON...)
	return append(buf, '}'), nil
}

// listTools answers with exactly one generation: the session's pinned one
// (--pin-sessions) or the live one, loaded once.
func (s *Server) listTools(ss *mcp.ServerSession, req *mcp.ListToolsRequest) (mcp.Result, error) {
	if req.Params != nil && req.Params.Cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: this server returns every tool in one page"}
	}
	g := s.sessionGen(ss)
	if st := s.notifier.state(ss); st != nil {
		st.listed.Store(g.Version)
	}
	s.metrics.lists.Inc()
	sl := sessionless(ss)
	cache := &s.lists[0]
	if sl {
		cache = &s.lists[1]
	}
	return &listResult{gen: g, sessionless: sl, cache: cache}, nil
}

// versionLabel renders a generation version for metrics.
func versionLabel(v uint64) string { return strconv.FormatUint(v, 10) }

// noteRevision keeps the revision initialize negotiated for ss.
func (s *Server) noteRevision(ss *mcp.ServerSession, res mcp.Result) {
	ir, ok := res.(*mcp.InitializeResult)
	st := s.notifier.state(ss)
	if !ok || st == nil {
		return
	}
	rev := ir.ProtocolVersion
	st.revision.Store(&rev)
}

// sessionRevision returns the negotiated revision of the session with the
// given id (Mcp-Session-Id), when it is known.
func (s *Server) sessionRevision(id string) (string, bool) {
	for ss := range s.mcp.Sessions() {
		if ss.ID() != id {
			continue
		}
		if st := s.notifier.state(ss); st != nil {
			if rev := st.revision.Load(); rev != nil {
				return *rev, true
			}
		}
		return "", false
	}
	return "", false
}
