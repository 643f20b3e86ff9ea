package term

import (
	"os"

	"golang.org/x/sys/unix"
)

func isTTY(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
