//go:build !unix

package transport

import "os/exec"

// ownGroup does nothing here: only the process itself is killed.
func ownGroup(*exec.Cmd) {}

// killGroup does nothing here; Close kills the process itself.
func killGroup(*exec.Cmd) {}
