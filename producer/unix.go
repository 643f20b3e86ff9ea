package producer

// This file serves the producer on a Unix socket (appendix B.4): the
// WebSocket exchange, framed by lines or by length prefixes, whichever the
// subscriber uses.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
)

// ListenUnix makes the socket path for ServeUnix: its directory is created
// (0700) when missing, a stale socket is removed, and the socket is made
// 0600, so only this user may connect.
func ListenUnix(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("producer: another producer is listening at %s", path)
		}
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("producer: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("producer: %w", err)
	}
	return ln, nil
}

// ServeUnix serves every subscriber that connects to ln until ctx ends or
// the producer closes; then it closes ln and waits for the connections to
// end. Connections from another user are refused where the system tells.
func (p *Producer) ServeUnix(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	return acceptUnix(ctx, ln, p.opts.Logf, func(ctx context.Context, c net.Conn) { p.serveUnixConn(ctx, c) })
}

// acceptUnix serves each connection to ln with serve, on a goroutine of
// its own, until ctx ends; then it closes ln and waits for the connections
// to end. Connections from another user are refused where the system tells.
func acceptUnix(ctx context.Context, ln net.Listener, logf func(string, ...any), serve func(context.Context, net.Conn)) error {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("producer: accept: %w", err)
		}
		if err := checkPeer(c); err != nil {
			logf("producer: refused a connection: %v", err)
			c.Close()
			continue
		}
		wg.Go(func() {
			defer c.Close()
			serve(ctx, c)
		})
	}
}

// serveUnixConn serves one subscriber on the Unix socket connection c.
func (p *Producer) serveUnixConn(ctx context.Context, c net.Conn) {
	up := &unixPeer{c: c, rd: wire.NewReader(c, wire.FramingUnknown, maxBody)}
	stop := context.AfterFunc(ctx, func() { up.end(protocol.CloseGoingAway, "") })
	defer stop()
	p.serveFramed(ctx, up, "Unix socket", "")
}

// checkPeer refuses a peer running as another user, where the system tells.
func checkPeer(c net.Conn) error {
	uid, ok, err := wire.PeerUID(c)
	if err != nil {
		return err
	}
	if ok && uid != os.Getuid() {
		return fmt.Errorf("the peer runs as user %d, not %d", uid, os.Getuid())
	}
	return nil
}

// unixPeer is a subscriber on a Unix socket.
type unixPeer struct {
	c    net.Conn
	rd   *wire.Reader // used by next only
	once sync.Once

	mu      sync.Mutex // one writer at a time; guards framing and buf
	framing wire.Framing
	buf     []byte
}

func (u *unixPeer) next() (inbound, error) {
	for {
		b, err := u.rd.Next()
		if errors.As(err, new(*wire.TooLargeError)) {
			continue
		}
		if err != nil {
			return inbound{}, err
		}
		u.mu.Lock()
		if u.framing == wire.FramingUnknown {
			u.framing = u.rd.Framing() // answer in the subscriber's framing
		}
		u.mu.Unlock()
		return inbound{data: b}, nil
	}
}

func (u *unixPeer) send(msg []byte) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	var err error
	if u.buf, err = wire.Append(u.buf[:0], u.framing, msg); err != nil {
		return err
	}
	_ = u.c.SetWriteDeadline(time.Now().Add(writeWait))
	_, err = u.c.Write(u.buf)
	return err
}

// hangupIsSilent marks a Unix socket: its hang-up cannot say why.
func (u *unixPeer) hangupIsSilent() {}

func (u *unixPeer) answer(_ inbound, msg []byte, _ bool) error { return u.send(msg) }

// end stops writing, so the subscriber reads the end of the stream; the
// connection is cut after closeWait unless it ends first.
func (u *unixPeer) end(int, string) {
	u.once.Do(func() {
		if cw, ok := u.c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		time.AfterFunc(closeWait, func() { u.c.Close() })
	})
}
