//go:build !linux

package serve

// hostCPU is not measured here (0, 0).
func hostCPU() (steal, total uint64) { return 0, 0 }
