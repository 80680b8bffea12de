// Package mcpclient is mcpctl's one MCP client, on the go-sdk: it fetches
// a live server's tool set over stdio (a subprocess, its process group
// reaped) or streamable HTTP (headers, bearer tokens hidden in errors), with
// the protocol revision pinned and then the newest, following tools/list
// pagination (MCP specification 2025-11-25, "Tools", "Pagination"). The
// stdio transport and the word splitting of stdio:COMMAND ARGS… are also
// used by replay --live (package fixtures).
//
//	set, err := mcpclient.LoadLive(ctx, "stdio:npx -y @modelcontextprotocol/server-filesystem /tmp", mcpclient.LiveOptions{})
package mcpclient
