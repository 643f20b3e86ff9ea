//go:build unix

package safefile

import "syscall"

// noFollow makes open refuse a symbolic link as the final component.
const noFollow = syscall.O_NOFOLLOW
