//go:build race

package tui

// raceEnabled: timings under the race detector are several times slower.
const raceEnabled = true
