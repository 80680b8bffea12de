package serveconfig

import (
	"strconv"

	"github.com/mcpctl/mcpctl/facade"
	"github.com/mcpctl/mcpctl/internal/keydoc"
)

// ConfigKeys documents every key of a serve config. The parser's
// unknown-key messages use its names, and the JSON Schema
// docs/schema/serve.schema.json and docs/config.md are generated from it.
var ConfigKeys = keydoc.Key{Type: keydoc.Object, Schema: map[string]any{"anyOf": []any{map[string]any{"required": []any{"tools"}}, map[string]any{"required": []any{"upstreams"}}}}, Keys: []keydoc.Key{
	{Name: "server", Type: keydoc.Object, Doc: "What the server says about itself in initialize (MCP 2025-11-25 basic/lifecycle, serverInfo and instructions).", Keys: serverKeyDocs},
	{Name: "tools", Type: keydoc.Array, Doc: "The tools served, in this order. A config has tools, upstreams or both.", Items: &toolEntryKey},
	{Name: "gate", Type: keydoc.Object, Doc: "Explicit permissions for changes the gate would refuse.", Keys: gateKeyDocs},
	{Name: "record", Type: keydoc.Object, Doc: "What `serve --record` redacts besides members whose name looks like a secret.", Keys: recordKeyDocs},
	{Name: "upstreams", Type: keydoc.Array, Doc: "MCP servers mcpctl does not host, served beside the tools through the same gate (a gateway; docs/serve.md#gateway).", Items: &keydoc.Key{Type: keydoc.Object, Keys: upstreamKeyDocs}},
}}

var upstreamKeyDocs = []keydoc.Key{
	{Name: "name", Type: keydoc.String, Required: true, Doc: "The upstream's name, unique among upstreams (in /status, metrics and the reload trigger upstream:NAME)."},
	{Name: "stdio", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.Scalar}, Doc: "The server's program and arguments, started without a shell and spoken to over stdio; a relative program path with a slash is resolved against the config's folder, a bare name through PATH. Exactly one of stdio and http."},
	{Name: "env", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "Names of variables copied from mcpctl's environment into a stdio server's (PATH always is). Names only: NAME=VALUE is an error."},
	{Name: "http", Type: keydoc.Object, Doc: "A streamable HTTP server. Exactly one of stdio and http.", Keys: upstreamHTTPKeyDocs},
	{Name: "prefix", Type: keydoc.String, Doc: "Prepended to every exposed tool name (fs_ exposes read_file as fs_read_file); calls are forwarded under the upstream's own name."},
	{Name: "tools", Type: keydoc.Object, Doc: "Which of the upstream's tools are served.", Keys: upstreamToolsKeyDocs},
	{Name: "facades", Type: keydoc.Map, Values: &facade.BlockKey, Doc: "Facade blocks keyed by the upstream's tool name: how calls made to the accepted contract reach the upstream's current one."},
	{Name: "refresh", Type: keydoc.Duration, Doc: "How often tools/list is polled beside the upstream's notifications/tools/list_changed. Absent: never."},
	{Name: "timeout", Type: keydoc.Duration, Default: "60s", Doc: "How long one forwarded call may take (and a tools/list of the running server)."},
	{Name: "startTimeout", Type: keydoc.Duration, Default: "60s", Doc: "How long one start or restart of the server may take: its process or connection, initialize and the first tools/list (an npx server may download first)."},
	{Name: "blue", Type: keydoc.Object, Doc: "The old side of a blue/green rollout, in place of stdio or http: a connection block {stdio, env} or {http}. Needs green.", Keys: upstreamSideKeyDocs},
	{Name: "green", Type: keydoc.Object, Doc: "The new side of a blue/green rollout, in place of stdio or http: a connection block {stdio, env} or {http}. Needs blue.", Keys: upstreamSideKeyDocs},
	{Name: "rollout", Type: keydoc.Object, Doc: "How a blue/green upstream rolls out (needs blue and green).", Keys: rolloutKeyDocs},
}

// upstreamSideKeyDocs are the keys of a blue or green side: the connection
// keys of an upstreams entry.
var upstreamSideKeyDocs = []keydoc.Key{
	{Name: "stdio", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.Scalar}, Doc: "This side's program and arguments, as an upstream's stdio. Exactly one of stdio and http."},
	{Name: "env", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "Names of variables copied into this side's stdio server, as an upstream's env."},
	{Name: "http", Type: keydoc.Object, Doc: "This side's streamable HTTP server, as an upstream's http. Exactly one of stdio and http.", Keys: upstreamHTTPKeyDocs},
}

var rolloutKeyDocs = []keydoc.Key{
	{Name: "newSessions", Type: keydoc.String, Enum: []string{"blue", "green"}, Default: "green",
		Doc: "The side sessions that initialize get; they keep it (tools/list and tools/call) until they end or blue is retired. Clients without sessions always list green."},
	{Name: "retireBlueAfter", Type: keydoc.Duration, Default: "1h",
		Doc: "How long after the rollout starts blue is retired: its sessions move to green with one notifications/tools/list_changed, and blue is stopped once its last call is done."},
}

var upstreamHTTPKeyDocs = []keydoc.Key{
	{Name: "url", Type: keydoc.String, Required: true, Doc: "An http:// or https:// URL (MCP streamable HTTP)."},
	{Name: "headers", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Object, Keys: []keydoc.Key{{Name: "env", Type: keydoc.String, Required: true, Doc: "The environment variable holding the header's value."}}},
		Doc: "Headers sent with every request, each value from an environment variable ({env: VARIABLE}); an inline value is an error."},
}

var upstreamToolsKeyDocs = []keydoc.Key{
	{Name: "include", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "The upstream tool names served. Absent: all."},
	{Name: "exclude", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "Upstream tool names never served."},
}

var serverKeyDocs = []keydoc.Key{
	{Name: "name", Type: keydoc.Scalar, Default: "mcpctl-serve", Doc: "serverInfo.name."},
	{Name: "version", Type: keydoc.Scalar, Doc: "serverInfo.version."},
	{Name: "title", Type: keydoc.Scalar, Doc: "serverInfo.title, for display."},
	{Name: "instructions", Type: keydoc.Scalar, Doc: "The instructions of the initialize result: how to use the server, for the model."},
}

var toolEntryKey = keydoc.Key{Type: keydoc.Object, Includes: true, Keys: append(append([]keydoc.Key(nil), specToolKeyDocs...), serveOnlyKeyDocs...)}

// specToolKeyDocs are the members of an MCP tool (MCP 2025-11-25 schema.ts,
// Tool with its BaseMetadata and Icons), served as written, in source
// order.
var specToolKeyDocs = []keydoc.Key{
	{Name: "name", Type: keydoc.String, Required: true, Doc: "The tool's name (MCP: 1–128 characters of A–Z a–z 0–9 _ - .)."},
	{Name: "title", Type: keydoc.String, Doc: "A display name."},
	{Name: "description", Type: keydoc.String, Doc: "What the tool does, for the model."},
	{Name: "inputSchema", Type: keydoc.Any, Schema: map[string]any{"type": "object"}, Doc: "The JSON Schema of the arguments (an object schema); calls are validated against it before any handler runs."},
	{Name: "outputSchema", Type: keydoc.Any, Schema: map[string]any{"type": "object"}, Doc: "The JSON Schema of structuredContent; handler output is checked against it."},
	{Name: "annotations", Type: keydoc.Any, Schema: map[string]any{"type": "object"}, Doc: "MCP tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title)."},
	{Name: "icons", Type: keydoc.Any, Schema: map[string]any{"type": "array"}, Doc: "MCP icons."},
	{Name: "execution", Type: keydoc.Any, Schema: map[string]any{"type": "object"}, Doc: "MCP execution hints (taskSupport)."},
	{Name: "_meta", Type: keydoc.Any, Schema: map[string]any{"type": "object"}, Doc: "MCP _meta, served as written (a deprecation adds io.mcpctl/deprecated)."},
}

// serveOnlyKeyDocs are mcpctl's own members of a tool entry, never served.
var serveOnlyKeyDocs = []keydoc.Key{
	{Name: "handler", Type: keydoc.Object, Schema: map[string]any{"minProperties": 1, "maxProperties": 1}, Doc: "How a call is answered: exactly one of exec, http or static. Absent: the tool is listed but calls fail.", Keys: []keydoc.Key{
		{Name: "exec", Type: keydoc.Object, Doc: "Run a command without a shell: the arguments as JSON on its stdin, its stdout as the result.", Keys: execKeyDocs},
		{Name: "http", Type: keydoc.Object, Doc: "POST the arguments as JSON to a URL; the response body is the result.", Keys: httpKeyDocs},
		{Name: "static", Type: keydoc.Object, Schema: map[string]any{"minProperties": 1, "maxProperties": 1}, Doc: "Fixed content: exactly one of text or json.", Keys: staticKeyDocs},
	}},
	withDoc(facade.BlockKey, "facade", "How calls made to the old contract are translated (as in a facade file); the gate counts facade findings it covers as safe."),
	{Name: "deprecated", Type: keydoc.Object, Doc: "Marks the tool deprecated: served with io.mcpctl/deprecated in _meta and a note in its description.", Keys: deprecatedKeyDocs},
}

var execKeyDocs = []keydoc.Key{
	{Name: "command", Type: keydoc.Array, Required: true, Items: &keydoc.Key{Type: keydoc.Scalar}, Doc: "The program and its arguments, run without a shell; a relative program path with a slash is resolved against the config's folder, a bare name through PATH."},
	{Name: "timeout", Type: keydoc.Duration, Default: "30s", Doc: "How long one call may run."},
	{Name: "maxOutput", Type: keydoc.Integer, Default: "1048576", Doc: "The most bytes of standard output read; more is an error result."},
	{Name: "env", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "Names of variables copied from mcpctl's environment (PATH always is); nothing else is passed. Names only: NAME=VALUE is an error."},
	{Name: "dir", Type: keydoc.Scalar, Doc: "The working folder. Default: the config's folder."},
	{Name: "concurrency", Type: keydoc.Integer, Default: strconv.Itoa(DefaultToolConcurrency), Doc: "How many calls of this tool may run at once (1 to 1000000); more wait in the server's queue (serve --exec-concurrency caps all exec calls, --exec-queue the waiting ones)."},
}

var httpKeyDocs = []keydoc.Key{
	{Name: "url", Type: keydoc.String, Required: true, Doc: "An http:// or https:// URL."},
	{Name: "timeout", Type: keydoc.Duration, Default: "30s", Doc: "How long one call may take."},
	{Name: "headers", Type: keydoc.Map, Values: &keydoc.Key{Type: keydoc.Scalar}, Doc: "Headers sent with every request."},
	{Name: "maxResponse", Type: keydoc.Integer, Default: "1048576", Doc: "The most bytes of response body read; more is an error result."},
}

var staticKeyDocs = []keydoc.Key{
	{Name: "text", Type: keydoc.String, Doc: "The text content returned."},
	{Name: "json", Type: keydoc.Any, Doc: "A JSON value returned as text and, for a tool with an outputSchema, as structuredContent."},
}

var deprecatedKeyDocs = []keydoc.Key{
	{Name: "since", Type: keydoc.Scalar, Doc: "The version or date since when the tool is deprecated."},
	{Name: "sunset", Type: keydoc.Date, Doc: "The day the tool is planned to go (diff's lifecycle rules judge removals against it)."},
	{Name: "replacement", Type: keydoc.String, Doc: "The tool to use instead."},
}

var gateKeyDocs = []keydoc.Key{
	{Name: "allow", Type: keydoc.Array, Doc: "Entries that let matching findings through the gate (matched as .mcpctl.yaml ignores match findings).", Items: &keydoc.Key{Type: keydoc.Object, Keys: allowKeyDocs}},
	{Name: "minNotice", Type: keydoc.Duration, Schema: map[string]any{"type": "string"}, Default: "7d",
		Doc: "How long before its sunset a deprecation must have been published for the removal at the sunset to pass the gate: a Go duration (168h, 0s) or N days (7d)."},
	{Name: "baseline", Type: keydoc.String, Doc: "A contract lockfile (as `mcpctl snapshot` writes it, with each tool's facade block), relative to this config: at start the first config is gated against the newer of it and the last contract published in `serve --state`."},
	{Name: "compatibility", Type: keydoc.String, Schema: map[string]any{"enum": []any{"backward", "forward", "full", "none"}}, Default: "backward",
		Doc: "The direction a change must be compatible in: backward (old calls keep working), forward (calls built from the new contract work on the old one: rolling updates), full (both) or none (findings reported, never gated)."},
	{Name: "transitive", Type: keydoc.Integer, Default: "1", Doc: "How many of the last contracts published in `serve --state` a candidate is checked against (1: the live one only)."},
	{Name: "descriptions", Type: keydoc.String, Enum: []string{DescriptionsNotice, DescriptionsHold}, Default: DescriptionsNotice,
		Doc: "For upstream tools: notice publishes a changed title, description or annotations with a notice; hold keeps the accepted text served until the change is approved (rug-pull pinning)."},
	{Name: "upstream", Type: keydoc.String, Enum: []string{UpstreamRefuse, UpstreamAutoFacade}, Default: UpstreamRefuse,
		Doc: "What a quarantined upstream's calls are translated with: refuse uses the declared facades only; auto-facade adds the facade suggestions the diff verified for the change."},
	{Name: "quietPeriod", Type: keydoc.Duration, Schema: map[string]any{"type": "string"}, Default: "7d",
		Doc: "How long a facade rule or deprecated tool must have gone without calls (counted in `serve --state`, else since the process started) before its removal may count as safe: a Go duration or N days."},
}

var allowKeyDocs = []keydoc.Key{
	{Name: "rule", Type: keydoc.String, Doc: "The rule id of the findings allowed. Absent: every rule (then tool is needed)."},
	{Name: "tool", Type: keydoc.String, Doc: "The tool whose findings are allowed. Absent: every tool (then rule is needed)."},
	{Name: "path", Type: keydoc.String, Doc: "A JSON Pointer (RFC 6901) in the tool's schema: findings there and below. Absent: everywhere."},
	{Name: "reason", Type: keydoc.String, Required: true, Doc: "Why the change may be published."},
	{Name: "expires", Type: keydoc.Date, Doc: "The day (from 00:00 UTC) or RFC 3339 time the entry stops covering findings; a refusal names an expired entry. Absent: never."},
	{Name: "until", Type: keydoc.Date, Deprecated: "expires", Doc: "The last day the entry covers (the old name; `until: D` is `expires:` the day after D)."},
}

var recordKeyDocs = []keydoc.Key{
	{Name: "redact", Type: keydoc.Array, Items: &keydoc.Key{Type: keydoc.String}, Doc: "Member names (redacted at any depth) or JSON Pointers starting with / (one position in the arguments) whose values are recorded as \"[redacted]\"."},
}

// withDoc is k named name, with doc.
func withDoc(k keydoc.Key, name, doc string) keydoc.Key {
	k.Name, k.Doc = name, doc
	return k
}

// The key names the parser accepts, from the tables above.
var (
	rootKeys       = keydoc.Names(ConfigKeys.Keys)
	serverKeys     = keydoc.Names(serverKeyDocs)
	toolKeys       = keydoc.Names(toolEntryKey.Keys)
	handlerKinds   = keydoc.Names(keydoc.Find(serveOnlyKeyDocs, "handler").Keys)
	execKeys       = keydoc.Names(execKeyDocs)
	httpKeys       = keydoc.Names(httpKeyDocs)
	staticKeys     = keydoc.Names(staticKeyDocs)
	deprecatedKeys = keydoc.Names(deprecatedKeyDocs)
	gateKeys       = keydoc.Names(gateKeyDocs)
	allowKeys      = keydoc.Names(allowKeyDocs)
	recordKeys     = keydoc.Names(recordKeyDocs)

	upstreamKeys      = keydoc.Names(upstreamKeyDocs)
	upstreamHTTPKeys  = keydoc.Names(upstreamHTTPKeyDocs)
	upstreamToolsKeys = keydoc.Names(upstreamToolsKeyDocs)
	upstreamSideKeys  = keydoc.Names(upstreamSideKeyDocs)
	rolloutKeys       = keydoc.Names(rolloutKeyDocs)
)
