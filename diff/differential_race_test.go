//go:build race

package diff_test

// defaultPairs is the differential test's default size; the race detector
// makes each pair about ten times slower, so it runs fewer.
const defaultPairs = 100
