package serve

import (
	"context"
	"encoding/json"
	"strconv"

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
		if ss != nil && s.opts.PinSessions {
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
			if s.opts.beforeCall != nil {
				s.opts.beforeCall(r.Params.Name)
			}
			return s.callTool(ctx, ss, r)
		case "initialize":
			if ss != nil {
				extra := req.GetExtra()
				s.notifier.begin(ss, extra != nil && extra.Header != nil)
				res, err := next(ctx, method, req)
				if err == nil {
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
}

// MarshalJSON writes {"_meta":…,"ttlMs":0,"cacheScope":"public","tools":[…]}
// (plus "resultType":"complete" for the 2026-07-28 revision).
func (r *listResult) MarshalJSON() ([]byte, error) {
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
	return &listResult{gen: g, sessionless: sessionless(ss)}, nil
}

// versionLabel renders a generation version for metrics.
func versionLabel(v uint64) string { return strconv.FormatUint(v, 10) }
