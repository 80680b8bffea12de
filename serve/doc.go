// Package serve is mcpctl's hot-reloading, gated MCP server (docs/serve.md#serve-the-hot-reloading-gated-server): it
// serves the tools of a config file over stdio or streamable HTTP (through
// github.com/modelcontextprotocol/go-sdk), watches the config, and publishes
// a changed tool contract only when it is compatible or explicitly allowed.
//
// # Config
//
// The config format (Config, LoadConfig, $file includes, positions, key
// tables) is package serveconfig's; serve builds generations from it.
// Options.MaxFileSize limits every file a reload reads.
//
// # Generations and the reload pipeline
//
// A Generation is an immutable snapshot: version, tools with compiled
// schemas and handlers, facades, the served "tools" bytes, the canonical
// form and its fingerprint. Server.Reload reads the config, builds a
// candidate off to the side (lint.ValidateTool and case-insensitive name
// uniqueness including facade aliases, schema.Compile, handlers), diffs it
// against the live generation with diff.Compare and refuses it when a
// breaking finding, or a facade finding the candidate's own facades do not
// cover, has no gate.allow entry (unless Options.AllowBreaking). Otherwise
// it publishes with one atomic.Pointer swap; writers are serialized, and a
// candidate whose build started before a newer one is discarded
// (ResultSuperseded), as is one whose inputs changed on disk during its
// build (the newest inputs are built instead). A refusal never loses the
// live generation; it is kept with its findings for Status.
//
// The gate remembers this process's publishes: a tool re-added under a name
// served before is diffed against its last published definition, a
// deprecation whose sunset is past or closer than gate.minNotice needs
// permission, and so does a removal after a sunset that was not published
// at least gate.minNotice before it.
//
// A panic while answering one request or building one candidate is a bug
// that ends neither: the request gets an isError result (tools/call) or a
// JSON-RPC internal error, the candidate is refused, and the panic is
// logged with its stack and counted in mcpctl_serve_panics_total{where}.
//
// Readers never lock: tools/list and tools/call load the pointer once and
// use that generation throughout; an in-flight call holds a reference, and a
// generation's handlers are closed when its last reference drops. A
// candidate shares the live generation's unchanged tools (compiled schemas,
// handler), each refcounted by the generations holding it.
//
// # The fast path
//
// On stdio (and Server.ConnectStream) a plain tools/call to an upstream
// is answered without the go-sdk decoding it on either hop: FastCall takes
// callTool's own steps and forwards the arguments with upstream.CallRaw,
// whose result bytes become the response (docs/gateway.md#the-fast-path).
// FastCallBody is the same for a transport that holds one request body.
//
// # Session pinning
//
// With Options.PinSessions (--pin-sessions), a session of a revision that
// has sessions (stdio, stateful HTTP; not stateless HTTP or 2026-07-28)
// keeps the generation live at its initialize for tools/list and
// tools/call, and is not notified of publishes, until it ends or
// Options.PinTTL passes (noticed on its next request or by a timer); it
// then moves to the live generation with one list_changed if that differs.
//
// # Blue/green
//
// An upstream with blue: and green: sides (UpstreamConn, Rollout) serves
// green as the live generation and builds a blue generation beside it
// (bluegreen.go). Sessions that initialize while rollout.newSessions is
// blue, and those connected when the rollout starts, are pinned to blue
// with the machinery above until retireBlueAfter, then move with one
// list_changed; calls of clients without sessions go where their
// arguments validate (routeByShape). Blue's connections close after its
// last session and call; Status.Rollout and mcpctl_serve_rollout_* count
// sessions and calls per side.
//
// # Notifications
//
// capabilities.tools.listChanged is advertised. After a publish whose
// canonical form changed, every initialized session gets exactly one
// notifications/tools/list_changed (sessions of the 2026-07-28 revision on
// their subscriptions/listen stream); a session that has not sent
// notifications/initialized gets it once it has. Each session has its own
// sender, so a stalled client blocks nothing else. Watch debounces and
// coalesces file events (folders are watched, so editors' renames and the
// Kubernetes ConfigMap "..data" swap are seen).
//
// # Calls
//
// Arguments are validated against the input schema before any handler
// runs; invalid ones get an isError result naming each field by JSON
// Pointer, what was expected, and a valid example: callcheck's message,
// the one replay reports for the same call. An unknown tool is a protocol
// error listing close names (callcheck.CloseNames). A call through a facade
// alias, or with arguments that only validate after the tool's facade, is
// translated by facade.Apply and counted. The exec, http and static
// handlers are package handler's; an upstream's tool is forwarded by
// serve's own forwardHandler (gateway.go). JSON output
// of a tool with an outputSchema is validated and served as
// structuredContent too.
//
// # Operating
//
// Run serves stdio or HTTP (HTTPHandler: Origin allowlist, bearer token,
// body limit), the admin endpoints (AdminHandler: package admin's
// handler over this server, behind its Host, Origin and bearer checks;
// /status assembled by Status, its counters admin.Counters) and the
// watcher, and shuts down gracefully: new calls are refused, in-flight
// calls finish up to the shutdown timeout, and nothing waits on a blocked
// stdout.
//
// With Options.RecordDir (--record), every tools/call that reaches a
// generation is appended to a file in that folder as an mcpctl fixture line
// ({"tool","arguments","generation","expect"}, docs/replay.md#replay-recorded-calls-against-a-new-contract), with the values
// the config's record.redact names and secret-looking members
// (recording.LooksSecret) replaced by "[redacted]"; a recording.Writer (a
// bounded queue and one writer goroutine) keeps the disk off the call
// path, and Close writes what is queued.
//
//	s, err := serve.New(ctx, serve.Options{ConfigPath: "mcpctl.serve.yaml", Logger: log})
//	if err != nil { … } // the first config could not be built: exit 2
//	defer s.Close()
//	err = s.Run(ctx, serve.RunOptions{HTTPAddr: "127.0.0.1:8931", AdminAddr: "127.0.0.1:8932", Watch: true})
package serve
