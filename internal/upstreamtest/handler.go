package upstreamtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpctl/mcpctl/schema"
)

// handle serves every tool: validate against the current schema, send the
// progress notifications, then echo (or, for SlowTool, block until the
// request is cancelled).
func (u *Upstream) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	u.calls.Add(1)
	name := req.Params.Name
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if msg := u.invalid(name, args); msg != "" {
		return errorResult(msg), nil
	}
	if err := u.progress(ctx, req); err != nil {
		return nil, err
	}
	if name == SlowTool {
		return nil, u.block(ctx, name)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(args)}},
		StructuredContent: args,
	}, nil
}

// invalid validates args against the tool's current input schema and says
// why they are refused ("" when they are valid).
func (u *Upstream) invalid(name string, args json.RawMessage) string {
	u.mu.Lock()
	e, ok := u.tools[name]
	u.mu.Unlock()
	if !ok {
		return fmt.Sprintf("unknown tool %q", name)
	}
	inst, err := schema.Decode(args)
	if err != nil {
		return fmt.Sprintf("arguments are not JSON: %v", err)
	}
	if err := e.validate.Validate(inst); err != nil {
		return fmt.Sprintf("invalid arguments for %s: %v", name, err)
	}
	return ""
}

// progress sends u.steps progress notifications when the request has a
// progressToken (MCP 2025-11-25, Basic / Utilities / Progress).
func (u *Upstream) progress(ctx context.Context, req *mcp.CallToolRequest) error {
	tok := req.Params.GetProgressToken()
	if tok == nil || u.steps < 0 {
		return nil
	}
	for i := 1; i <= u.steps; i++ {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: tok, Progress: float64(i), Total: float64(u.steps),
			Message: fmt.Sprintf("step %d of %d", i, u.steps),
		})
		if err != nil {
			return fmt.Errorf("progress: %w", err)
		}
	}
	return nil
}

// block waits until ctx is done (the client cancelled the request, MCP
// 2025-11-25, Basic / Utilities / Cancellation) and reports it.
func (u *Upstream) block(ctx context.Context, name string) error {
	signal(u.started, name)
	select {
	case <-ctx.Done():
	case <-u.released:
		return errReleased
	}
	signal(u.cancelled, name)
	return ctx.Err()
}

// errReleased ends the calls Release ends.
var errReleased = errors.New("the upstream released its blocked calls")

func signal(ch chan string, name string) {
	select {
	case ch <- name:
	default:
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
