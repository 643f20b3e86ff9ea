//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package term

import "os"

// isTTY, where there is no termios, takes a character device for a terminal.
func isTTY(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
