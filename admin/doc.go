// Package admin owns what a running `mcpctl serve` tells its operators:
// the call counters that /status and /metrics both read (Counters,
// SideCounts: each counter kept once).
package admin
