package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is stamped at release: -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3".
var Version = "dev"

// versionString returns "mcpctl VERSION (REVISION, GOVERSION)", with the VCS
// revision from the build info when the binary was built from a checkout.
func versionString() string {
	rev := "unknown revision"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var r, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				r = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if r != "" {
			if len(r) > 12 {
				r = r[:12]
			}
			rev = r + dirty
		} else if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			rev = bi.Main.Version
		}
	}
	return fmt.Sprintf("mcpctl %s (%s, %s)", Version, rev, runtime.Version())
}

// versionOptions is empty: version has no flags.
type versionOptions struct{}

// NewCmdVersion builds `mcpctl version`; runF, when set, runs instead of
// printing the version (tests).
func NewCmdVersion(s *Streams, runF func(*versionOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the mcpctl version and VCS revision",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(&versionOptions{})
			}
			_, err := fmt.Fprintln(s.Out, versionString())
			return err
		},
	}
}
