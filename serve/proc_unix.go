//go:build unix

package serve

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in its own process group and makes
// cancellation kill the whole group, so children a script starts die too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		killGroup(cmd)
		return nil
	}
}

// killGroup kills the process group of a started command (SIGKILL to
// -pgid): the command, if it still runs, and every process it started
// that stayed in its group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// oNoFollow makes os.OpenFile refuse a symbolic link as the last element.
const oNoFollow = syscall.O_NOFOLLOW
