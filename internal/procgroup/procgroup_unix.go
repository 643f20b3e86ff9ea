//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, not yet started, start in a process group of its own.
func Own(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// Kill kills cmd's process group, cmd and everything it started that is
// still in the group. cmd must have been started after Own.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
