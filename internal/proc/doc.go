// Package proc owns the process-group handling of the commands mcpctl
// starts (exec handlers, stdio upstreams): SetGroup starts a command in a
// process group of its own, KillGroup kills that group, so what a command
// started dies with it.
//
//	cmd := exec.Command(argv[0], argv[1:]...)
//	proc.SetGroup(cmd) // cancelling cmd's context kills the whole group
package proc
