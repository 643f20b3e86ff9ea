//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package term

import (
	"os"

	"golang.org/x/sys/unix"
)

func isTTY(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TIOCGETA)
	return err == nil
}
