//go:build !race

package diff_test

// defaultPairs is the differential test's default size (see
// differential_race_test.go for runs with the race detector).
const defaultPairs = 400
