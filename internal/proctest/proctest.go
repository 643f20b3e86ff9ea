// Package proctest stops the daemons tests start (brltty, speech-dispatcher)
// by their process, politely first, then for good; and tells benchmarks the
// processor time their own process has used.
package proctest

import (
	"os/exec"
	"syscall"
	"time"
)

// Stop sends cmd's process SIGTERM and waits for it to exit; after grace it
// kills it. cmd must have been started and not yet waited for.
func Stop(cmd *exec.Cmd, grace time.Duration) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		cmd.Process.Kill()
		<-done
	}
}

// CPUTime is the user and system time the calling process has used so far
// (all its threads, the garbage collector's included); 0 when the system
// cannot say. A benchmark's events per processor-second vary less than its
// events per second on a shared machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
