// Package lockfile owns the contract lockfile: the tools as `mcpctl
// snapshot` writes them (a tools/list result, MCP 2025-11-25 §server/tools)
// plus each tool's facade block (docs/serve.md#config "Facade file"):
//
//	{
//	  "tools": [ … ],
//	  "facades": {
//	    "search": {"rename": {"q": "query"}}
//	  }
//	}
//
// A plain snapshot (no "facades" member) is a lockfile without facades, so
// every existing lockfile stays valid, and a lockfile is still a source
// every command reads as a tool set (toolset.Decode ignores "facades").
//
//	var buf bytes.Buffer
//	err := lockfile.Write(&buf, set, facades)
//	lock, err := lockfile.Decode("tools.lock.json", buf.Bytes())
//	// lock.Set, lock.Facades
package lockfile
