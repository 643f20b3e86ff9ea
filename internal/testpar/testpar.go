// Package testpar lets the tests of a package that mostly wait (on peers,
// processes and timers, not on the processor) run more at a time than the
// machine has processors, in runs without the race detector.
package testpar

import (
	"flag"
	"runtime"
	"strconv"
)

// Widen lets n parallel tests run at once, from a TestMain before m.Run,
// unless -test.parallel was given or the race detector is on: a race run
// costs several times the processor time, and its tests keep the default
// of one at a time per processor.
func Widen(n int) {
	if raceEnabled {
		return
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given || n <= runtime.GOMAXPROCS(0) {
		return
	}
	_ = flag.Set("test.parallel", strconv.Itoa(n)) // the testing package's own flag
}
