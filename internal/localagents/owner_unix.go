//go:build unix

package localagents

import (
	"io/fs"
	"syscall"
)

// owner returns the user that owns the file st describes.
func owner(st fs.FileInfo) (int, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}
