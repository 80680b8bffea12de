package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// completeValues offers the fixed values of a flag to shell completion
// (`mcpctl completion`), and no file names.
func completeValues(c *cobra.Command, flag string, values ...string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// colorValues are the values of the root's --color flag.
var colorValues = []string{"auto", "always", "never"}

// enumValue is a string flag that accepts only one of values, checked when
// the flag is parsed (a usage error otherwise).
type enumValue struct {
	target *string
	values []string
}

func (e enumValue) String() string { return *e.target }
func (e enumValue) Type() string   { return "string" }
func (e enumValue) Set(s string) error {
	if !slices.Contains(e.values, s) {
		return fmt.Errorf("must be %s", strings.Join(e.values, ", "))
	}
	*e.target = s
	return nil
}
