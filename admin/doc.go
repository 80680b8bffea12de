// Package admin owns what a running `mcpctl serve` tells its operators:
//
//   - the /status document: Status and the types it holds (SessionStatus,
//     CallCounts, RolloutStatus, ReloadResult, Finding), the JSON contract
//     of GET /status and of `mcpctl status --admin ADDR --format json`
//     (docs/output.md#status-of-one-server, schema
//     docs/schema/status-output.schema.json), and Decision, the body of
//     POST /approve and /reject;
//   - the call counters, each kept once (Counters, SideCounts): the call
//     path adds to them, /status reads them and /metrics collects them;
//   - the admin endpoints (Handler: /healthz, /readyz, /status, /metrics,
//     POST /reload, /approve, /reject) over the Server interface, which
//     package serve's *Server implements.
//
// It sits below package report, which renders a Status as text, and
// below serve, which assembles the Status and guards the listener (Host,
// Origin and bearer checks, passed in as Guards).
//
//	h := admin.Handler(srv, admin.Guards{Check: hostCheck, Private: bearer})
package admin
