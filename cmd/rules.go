package cmd

import (
	"bytes"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/report"
)

type rulesOptions struct {
	Format string
}

// NewCmdRules builds `mcpctl rules`; runF, when set, receives the parsed
// options instead of runRules (tests).
func NewCmdRules(s *Streams, runF func(*rulesOptions) error) *cobra.Command {
	opts := rulesOptions{}
	c := &cobra.Command{
		Use:   "rules",
		Short: "Print the rule catalog of mcpctl diff and mcpctl lint",
		Long: `Print every rule mcpctl diff and mcpctl lint apply: its stable id (what
.mcpctl.yaml overrides and ignores name), kind (diff or lint), default level
(safe, facade or breaking for diff; error or warning for lint), direction
(diff rules), tags and purpose.`,
		Example: `  mcpctl rules
  mcpctl rules --format markdown > RULES.md
  mcpctl rules --format json | jq -r '.[] | select(.kind == "diff" and .level == "breaking") | .id'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(&opts)
			}
			return runRules(s, opts)
		},
	}
	c.Flags().StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(report.RulesFormats(), ", "))
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.RulesFormats(), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runRules(s *Streams, opts rulesOptions) error {
	if !contains(report.RulesFormats(), opts.Format) {
		return usageErrorf("--format must be one of %s, got %q", strings.Join(report.RulesFormats(), ", "), opts.Format)
	}
	var buf bytes.Buffer
	if err := report.RenderRules(&buf, opts.Format, report.Catalog(), report.Options{Color: opts.Format == "text" && s.ColorOut()}); err != nil {
		return err
	}
	_, err := s.Out.Write(buf.Bytes())
	return err
}
