// Command mcpctl checks, compares, replays and serves MCP tool contracts.
package main

import (
	"os"

	"github.com/mcpctl/mcpctl/cmd"
)

func main() { os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
