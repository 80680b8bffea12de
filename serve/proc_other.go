//go:build !unix

package serve

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the default
// cancellation kills the command itself.
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the command itself (there are no process groups).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// oNoFollow is 0 where the flag does not exist (O_EXCL still refuses an
// existing link).
const oNoFollow = 0
