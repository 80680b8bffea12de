//go:build race

package serve

// raceDetector reports whether the tests run with the race detector, which
// makes a large tool list seconds of CPU (see
// TestAdversarialGatewayHostileToolList).
const raceDetector = true
