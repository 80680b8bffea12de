//go:build !unix

package proc

import "os/exec"

// SetGroup is a no-op where process groups do not exist; the default
// cancellation kills the command itself.
func SetGroup(*exec.Cmd) {}

// KillGroup kills the command itself (there are no process groups).
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
