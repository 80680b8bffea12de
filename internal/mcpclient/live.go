package mcpclient

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcpctl/mcpctl/toolset"
)

// LiveOptions configures reading a tool set from a running server.
type LiveOptions struct {
	// Timeout bounds the whole exchange (start, initialize, every
	// tools/list page); 0 means 60 seconds.
	Timeout time.Duration
	// Env is extra environment for stdio servers ("KEY=VALUE").
	Env []string
	// Stderr receives a stdio server's standard error; nil discards it.
	Stderr interface{ Write([]byte) (int, error) }
	// Logger receives debug records (negotiated protocol version, server
	// name, a protocol retry); nil is silent.
	Logger *slog.Logger
	// Headers are sent with every request to an http(s) server (for
	// example Authorization). Their values never appear in errors.
	Headers http.Header
	// Progress, when set, is told what the exchange waits for: "starting
	// COMMAND …" or "connecting to URL …", "waiting for initialize …",
	// "listing tools, page N". Calls may come from two fetches at once
	// (diff loads both sides together).
	Progress func(status string)
	// Warn, when set, receives warnings that do not stop the exchange,
	// such as a line on a stdio server's standard output that is not
	// JSON-RPC (skipped); nil drops them.
	Warn func(msg string)
}

func (o LiveOptions) progress(status string) {
	if o.Progress != nil {
		o.Progress(status)
	}
}

// LoadLive reads the tool set of a running server through the go-sdk MCP
// client: "stdio:COMMAND ARGS…" (the rest split by SplitWords, argv[0] run
// directly, never by a shell) or an http(s) URL (streamable HTTP). It asks
// for protocol revision PinnedProtocolVersion, follows tools/list
// pagination to the end, and keeps each tool's bytes exactly as the server
// sent them (Tool.Raw; Tool.Offset is -1, Tool.Index the position over all
// pages). The whole exchange is bounded by opts.Timeout. A server that
// cannot be started or reached, that fails initialize or tools/list, that
// does not answer in time, or whose result is not a valid tool list is an
// *InputError (wraps ErrInput) naming source; cancelling ctx returns an
// error wrapping context.Canceled. Implemented in live_client.go.
func LoadLive(ctx context.Context, source string, opts LiveOptions) (*toolset.Set, error) {
	return loadLive(ctx, source, opts)
}
