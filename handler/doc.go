// Package handler runs the tool calls of a serve config's handlers
// (docs/serve.md#handlers): exec (argv, no shell, JSON on stdin, timeout,
// output cap, cleaned environment, each call in its own process group
// through internal/proc, killed when the command exits or the server's
// shutdown timeout passes; at most exec.concurrency calls of a tool and
// --exec-concurrency in all run at once, --exec-queue more wait in a Pool,
// and a call beyond is refused), http (POST JSON, header secrets from the
// environment, redirects on the same origin only, error bodies withheld
// when a header holds a secret) and static.
//
// Build makes a Handler of a serveconfig.HandlerConfig; package serve
// calls it for every tool of a candidate generation and forwards the
// tools of upstreams itself.
//
//	h, err := handler.Build(cfg.Tools[0].Handler, dir, os.LookupEnv, nil)
//	out, err := h.Call(ctx, []byte(`{"q":"x"}`))
package handler
