//go:build unix && !linux

package procgroup

import "os/exec"

// mark does nothing here: processes cannot be found by their environment.
func mark(*exec.Cmd) {}

// killMarked does nothing here (see mark).
func killMarked(*exec.Cmd) {}
