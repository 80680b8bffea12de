//go:build unix

package proc

import (
	"os/exec"
	"syscall"
)

// SetGroup starts the command in its own process group and makes
// cancellation kill the whole group, so children a script starts die too.
func SetGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		KillGroup(cmd)
		return nil
	}
}

// KillGroup kills the process group of a started command (SIGKILL to
// -pgid): the command, if it still runs, and every process it started
// that stayed in its group.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
