//go:build !race

package search

// raceDetector says whether the race detector is on (see race_test.go).
const raceDetector = false
