//go:build !unix

// Package cputime reads the CPU time the process has used, for benchmarks
// that report a ratio on a shared machine: unlike wall time it does not
// grow while other processes hold the CPU.
package cputime

import "time"

// Process is not measured on this platform: always 0.
func Process() time.Duration { return 0 }
