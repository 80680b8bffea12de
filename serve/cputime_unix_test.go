//go:build unix

package serve

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) the process has used, so a
// benchmark on a busy machine can report what it cost rather than how long
// it waited.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
