package cliflag

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Listen listens on the TCP address an --addr flag gave. An address that
// is not HOST:PORT is a usage error; one that another program holds says
// how to pick a free port.
func Listen(addr string) (net.Listener, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, Usagef("--addr %q: want HOST:PORT, such as 127.0.0.1:8080 (port 0 picks a free one)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("listen on %s: another program uses that port; --addr 127.0.0.1:0 picks a free one", addr)
	case err != nil:
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
