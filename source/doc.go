// Package source turns a source string into a tool set: "-" (standard
// input), a file (a discovery document or a serve config), a folder of
// per-tool snapshots, git:REV:PATH (a file, or a serve config with its
// includes, at a revision), stdio:COMMAND ARGS… and http(s):// URLs (live
// servers, through toolset's MCP client) and client-config:FILE#NAME (one
// server of an MCP client's configuration). It is the one place that knows
// every kind of source, serve configs included (read through package
// serveconfig's parser), so toolset stays the Tool and Set types and their
// decoding. See docs/diff.md#inputs.
//
//	set, err := source.Load(ctx, "git:origin/main:tools.lock.json", source.LoadOptions{})
//	if errors.Is(err, toolset.ErrInput) { /* exit 2 */ }
package source
