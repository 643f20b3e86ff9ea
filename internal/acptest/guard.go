package acptest

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// MaxWait bounds one wait of a test on an agent: far more than the
// slowest real agent takes for a step on a loaded machine, and far less
// than go test's timeout, so that a stuck test fails on its own, saying
// what it waited for, rather than being killed with the whole binary.
const MaxWait = 3 * time.Minute

// until is when a wait that starts now gives up: MaxWait from now, or
// five seconds before t's deadline if that is sooner.
func until(t testing.TB) time.Time {
	end := time.Now().Add(MaxWait)
	dt, ok := t.(interface{ Deadline() (time.Time, bool) }) // *testing.T
	if !ok {
		return end
	}
	if d, ok := dt.Deadline(); ok && d.Add(-5*time.Second).Before(end) {
		end = d.Add(-5 * time.Second)
	}
	return end
}

// Guard returns a timer that fires when a wait that starts now gives up:
// the only time limit of a test that waits on an agent's events. Stop it
// when done; when it fires, call Stuck.
func Guard(t testing.TB) *time.Timer {
	return time.NewTimer(time.Until(until(t)))
}

// Context is a context for one call of t's that may wait on an agent
// (Confirm, Answer, Tell, Next): it ends when such a wait gives up, or
// when t ends.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), until(t))
	t.Cleanup(cancel)
	return ctx
}

// Stuck fails t because a wait gave up, with every goroutine's stack in
// the log: what was stuck, and where.
func Stuck(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Logf("every goroutine, as the wait gave up:\n%s", stacks())
	t.Fatalf(format, args...)
}

// stacks is every goroutine's stack (the first MiB of them).
func stacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}

// Wait waits for done, as a cleanup may: if it does not close in time,
// it says so with every goroutine's stack, and fails t without stopping
// the cleanups that follow.
func Wait(t testing.TB, what string, done <-chan struct{}) {
	t.Helper()
	g := Guard(t)
	defer g.Stop()
	select {
	case <-done:
	case <-g.C:
		t.Errorf("%s did not end within %v; every goroutine:\n%s", what, MaxWait, stacks())
	}
}
