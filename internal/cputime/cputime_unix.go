//go:build unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report a ratio on a shared machine: unlike wall time it does not
// grow while other processes hold the CPU.
package cputime

import (
	"syscall"
	"time"
)

// Process is the process's user + system CPU time (0 if unknown).
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
