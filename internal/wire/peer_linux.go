package wire

import (
	"fmt"
	"net"
	"syscall"
)

// PeerUID returns the user ID of the process at the other end of a Unix
// socket; ok is false where the system cannot tell.
func PeerUID(c net.Conn) (uid int, ok bool, err error) {
	uc, isUnix := c.(*net.UnixConn)
	if !isUnix {
		return 0, false, nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var cred *syscall.Ucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return 0, false, fmt.Errorf("wire: cannot read the peer's credentials: %w", err)
	}
	return int(cred.Uid), true, nil
}
