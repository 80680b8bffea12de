// Package toolset owns the Tool and Set types, decoding them from bytes
// (discovery documents, per-tool snapshots, MCP client configurations) and
// writing snapshots. It does no I/O: reading a source string (a file, a
// folder, standard input, git:REV:PATH, a serve config,
// client-config:FILE#NAME) is package source's job, fetching from a live
// server internal/mcpclient's.
//
// A Tool keeps both its exact source bytes (Raw, member order preserved, for
// serving and snapshots) and a parsed canon.Value for analysis. A Set holds
// the tools of one server sorted by name, names unique.
//
//	set, err := toolset.Decode("tools.lock.json", data)
//	if errors.Is(err, toolset.ErrInput) { /* exit 2 */ }
//	fmt.Println(set.Fingerprint())
package toolset
