package producer

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer refuses a Unix socket peer running as another user.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
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
		return fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("the peer runs as user %d, not %d", cred.Uid, os.Getuid())
	}
	return nil
}
