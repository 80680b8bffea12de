// Command mutableupstream is the mutable upstream of package upstreamtest as
// a stdio MCP server, changed through a control file (-control) and made to
// crash by a "crash" line, for gateway restart tests.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/internal/upstreamtest"
)

func main() { os.Exit(upstreamtest.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
