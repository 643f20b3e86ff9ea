package acptest

import (
	"testing"
	"time"
)

// Guard returns a timer that fires five seconds before t's deadline (five
// minutes from now when it has none): the only time limit of a test that
// waits on an agent's events, so that it fails saying what it saw rather
// than being killed. Stop it when done.
func Guard(t *testing.T) *time.Timer {
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(5 * time.Minute)
	}
	return time.NewTimer(time.Until(deadline) - 5*time.Second)
}
