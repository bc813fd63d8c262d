//go:build race

package search

// raceDetector says whether the race detector is on: tests that only
// re-check results (not concurrency) check a sample then, as it makes
// searching ten times slower.
const raceDetector = true
