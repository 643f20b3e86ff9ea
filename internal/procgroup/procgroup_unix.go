//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, not yet started, start in a process group of its own;
// where processes can be found by what they inherited (Linux), it also
// marks cmd's environment, so that a descendant that left the group
// (setsid, setpgid) is found by Kill. Set cmd.Env, if at all, before Own.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	mark(cmd)
}

// Kill kills cmd's process group, cmd and everything it started that is
// still in the group, and on Linux every process that inherited Own's
// mark, in a session or group of its own too. cmd must have been started
// after Own.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	killMarked(cmd)
}
