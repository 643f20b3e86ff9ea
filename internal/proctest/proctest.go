// Package proctest stops the daemons tests start (brltty, speech-dispatcher)
// by their process: politely first, then for good.
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
