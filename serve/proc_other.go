//go:build !unix

package serve

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the default
// cancellation kills the command itself.
func setProcessGroup(*exec.Cmd) {}
