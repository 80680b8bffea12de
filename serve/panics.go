package serve

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Where a recovered panic happened (the "where" label of
// mcpctl_serve_panics_total).
const (
	panicCall    = "call"    // a tools/call request
	panicRequest = "request" // any other request
	panicReload  = "reload"  // building or gating a candidate
)

// PanicError is a panic recovered while handling one request or one reload:
// a bug in mcpctl, answered as an isError result, a JSON-RPC internal error
// or a refused candidate instead of ending the process.
type PanicError struct {
	// Where is "call", "request" or "reload".
	Where string
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack at the recovery.
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error (a bug in mcpctl serve) during a %s: %v", e.Where, e.Value)
}

// bug records a recovered panic: logged with its stack as a bug and counted
// by where it happened.
func (s *Server) bug(where string, v any, attrs ...any) *PanicError {
	pe := &PanicError{Where: where, Value: v, Stack: debug.Stack()}
	s.metrics.panics.WithLabelValues(where).Inc()
	attrs = append(attrs, "where", where, "panic", fmt.Sprint(v), "stack", string(pe.Stack))
	s.log.Error("bug: recovered a panic; the server goes on", attrs...)
	return pe
}

// callPanic records a panic recovered during a tools/call of tool and
// returns the call's isError result.
func (s *Server) callPanic(v any, tool string) *mcp.CallToolResult {
	s.bug(panicCall, v, "method", "tools/call", "tool", tool)
	return errorResult(fmt.Sprintf("Tool %q failed: internal error in the server (a bug, logged); other calls are not affected.", tool))
}

// recoverMiddleware is the outermost receiving middleware: a panic while
// handling one request answers that request (a tools/call with an isError
// result, anything else with a JSON-RPC internal error) and is logged and
// counted; the session and the process go on.
func (s *Server) recoverMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if method == "tools/call" {
				tool := ""
				if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
					tool = r.Params.Name
				}
				res, err = s.callPanic(v, tool), nil
				return
			}
			s.bug(panicRequest, v, "method", method)
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in the server (a bug, logged)"}
		}()
		return next(ctx, method, req)
	}
}
