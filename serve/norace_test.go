//go:build !race

package serve

// raceDetector: see race_test.go.
const raceDetector = false
