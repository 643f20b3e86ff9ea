//go:build !linux

package producer

import "net"

// checkPeer accepts every peer where credentials cannot be read.
func checkPeer(net.Conn) error { return nil }
