// Package upstreamtest is the test kit of the gateway: a "mutable upstream",
// an in-process MCP server (go-sdk) whose tool list a test changes on demand,
// and the stdio program cmd/mutableupstream that runs the same server as a
// child process a gateway starts, changes and restarts.
//
// Every change (Add, RenameProperty, NarrowEnum, SetDescription, Remove) is
// one Change applied by Apply; the server then sends
// notifications/tools/list_changed to its sessions (MCP 2025-11-25, Server
// Features / Tools / List Changed Notification). The go-sdk debounces these
// by 10 ms, so changes made in one burst reach a client as one notification.
//
// Every tool echoes its arguments: structuredContent is the arguments object,
// content one text block with its JSON. Arguments are validated against the
// tool's current input schema first (package schema), so a call still in an
// old shape gets an isError result, as a real server would answer it. A
// request that carries a progressToken gets ProgressSteps progress
// notifications before its result; the tool named "slow" blocks until its
// request is cancelled.
//
//	u := upstreamtest.New(upstreamtest.DefaultTools()...)
//	cs, err := u.Connect(ctx, client) // over mcp.NewInMemoryTransports
//	err = u.RenameProperty("echo", "message", "text")
//
// Crash closes every session, as a dying process would; the upstream accepts
// new connections afterwards (a restart).
package upstreamtest
