// Package upstream owns one connection of the serve gateway to an MCP
// server mcpctl does not host (docs/serve.md#gateway): it starts the
// server (stdio: a command without a shell, in a process group of its
// own, with an allowlisted environment) or reaches it (streamable HTTP,
// headers from the environment), initializes, reads its tools/list
// exactly as sent (mcpclient.Lister, every page), re-reads it on the
// server's notifications/tools/list_changed and every Refresh, restarts a
// server that went away with capped exponential backoff, and forwards
// calls with a per-call timeout, relaying progress notifications and
// cancelling the upstream request when the caller's context ends.
//
// While the server is down, Call fails at once with an error wrapping
// ErrUnavailable. Close stops everything it started.
//
//	u, err := upstream.Start(ctx, upstream.Options{Name: "files", Command: argv, OnList: reload})
//	set := u.Tools()                       // the tools as the server lists them
//	res, err := u.Call(ctx, params, relay) // forwarded under the server's own name
//	u.Close()
package upstream
