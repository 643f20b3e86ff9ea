//go:build !unix

package procgroup

import "os/exec"

// Own does nothing here: there are no process groups.
func Own(*exec.Cmd) {}

// Kill kills cmd itself.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
