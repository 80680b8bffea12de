package toolset

import (
	"context"
	"time"
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
}

// LoadLive reads the tool set of a running server: "stdio:COMMAND ARGS…" or
// an http(s) URL. Implemented in live_client.go.
func LoadLive(ctx context.Context, source string, opts LiveOptions) (*Set, error) {
	return loadLive(ctx, source, opts)
}
