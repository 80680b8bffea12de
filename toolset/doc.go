// Package toolset owns the Tool and Set types and reads tool sets from every
// source mcpctl accepts (docs/diff.md#inputs): discovery documents in files or on
// standard input, folders of per-tool snapshots, files at a git revision, and
// live MCP servers over stdio or streamable HTTP.
//
// A Tool keeps both its exact source bytes (Raw, member order preserved, for
// serving and snapshots) and a parsed canon.Value for analysis. A Set holds
// the tools of one server sorted by name, names unique.
//
//	set, err := toolset.Load(ctx, "tools.lock.json", toolset.LoadOptions{})
//	if errors.Is(err, toolset.ErrInput) { /* exit 2 */ }
//	fmt.Println(set.Fingerprint())
package toolset
