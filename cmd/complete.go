package cmd

import "github.com/spf13/cobra"

// completeValues offers the fixed values of a flag to shell completion
// (`mcpctl completion`), and no file names.
func completeValues(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// colorValues are the values of the root's --color flag.
var colorValues = []string{"auto", "always", "never"}
