// Package serveconfig is the serve config format (docs/serve.md#config):
// parsing, $file includes, positions and the checks that need no compiled
// schema or handler. Package serve builds and serves generations from a
// Config; package source reads a config's tools as a tool set.
//
// A config (Config, LoadConfig) is YAML or JSON: server {name, version},
// tools (MCP tool objects plus the serve-only handler, facade and deprecated
// members) and gate: allow entries ({rule?, tool?, until?, reason}) and
// minNotice (default 7d). Any {$file: PATH} inside a tool is replaced by
// that JSON or YAML file, relative to the including file's folder, which
// must lie in the config's folder tree once symlinks are resolved. Only
// regular files are read, each at most the size LoadConfigLimits is given
// (serve's Options.MaxFileSize) and within a time limit (internal/safefile),
// and YAML aliases may not expand a document past ten values per node
// written (an alias bomb is an error). Each tool is served with its members
// and schema keys in the order the file wrote them (the config is read as
// yaml.v3 nodes into an ordered canon.Value; the served bytes are rendered
// from it); only the tool list is sorted by name. A tool entry accepts
// exactly the MCP 2025-11-25 Tool members (name, title, description,
// inputSchema, outputSchema, annotations, icons, execution, _meta) and
// handler, facade and deprecated; any other key, at any level, is an error
// listing the accepted keys, with "did you mean" for a near miss. A facade
// block is read by facade.ParseBlock, so it is checked and worded as in a
// --facades file. Errors are *toolset.InputError values located by file,
// line, column (for a YAML syntax error, the line only: yaml.v3 reports no
// column), tool and JSON Pointer. Package source reads a serve config
// through ParseConfig, so `mcpctl canon`, `lint` and `diff` take one as a
// source.
package serveconfig
