// unix.go: the Unix socket binding (appendix B.4): the WebSocket exchange
// on a local socket, framed by lines or by 4-byte length prefixes.

package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aaep-term/aaep-term/internal/wire"
)

// UnixOptions configures DialUnix. The zero value is usable.
type UnixOptions struct {
	LinkOptions
	// LengthPrefixed sends messages with a 4-byte big-endian length prefix
	// instead of one per line. What the producer sends is read in either
	// framing, told from its first byte.
	LengthPrefixed bool
}

// UnixSocketPath returns where a producer named id listens by convention:
// <UnixSocketDir>/<id>.sock.
func UnixSocketPath(id string) string {
	return filepath.Join(UnixSocketDir(os.Getenv), id+".sock")
}

// UnixSocketDir returns the directory where local producers put their
// sockets by convention (spec appendix B.4.1): $XDG_RUNTIME_DIR/aaep, else,
// when XDG_RUNTIME_DIR is unset or not an absolute path (the XDG base
// directory rules ignore a relative one), the spec's fallback
// $TMPDIR/aaep-<uid> (/tmp when TMPDIR is unset).
func UnixSocketDir(getenv func(string) string) string {
	if dir := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "aaep")
	}
	tmp := getenv("TMPDIR")
	if !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, fmt.Sprintf("aaep-%d", os.Getuid()))
}

// DialUnix connects to the producer listening at path, a socket path or,
// without any slash, a producer id (see UnixSocketPath). The connection
// sends the subscription request first and reconnects by running the
// handshake again, as DialWebSocket does; the producer ending the stream
// after a subscription.close or a rejection ends it for good.
func DialUnix(ctx context.Context, path string, opts UnixOptions) (Conn, error) {
	if path == "" {
		return nil, errors.New("transport: a unix: endpoint needs a socket path or a producer id")
	}
	if !strings.Contains(path, "/") {
		path = UnixSocketPath(path)
	}
	framing := wire.FramingLines
	if opts.LengthPrefixed {
		framing = wire.FramingLength
	}
	max := opts.withDefaults().MaxFrameBytes
	b := binding{
		name: "Unix socket",
		dial: func(ctx context.Context, _ func(string)) (link, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", path)
			if err != nil {
				return nil, unixDialError(path, err)
			}
			if err := checkProducer(c, path); err != nil {
				c.Close()
				return nil, err
			}
			return &streamLink{c: c, rd: wire.NewReader(c, wire.FramingUnknown, max), framing: framing}, nil
		},
	}
	return dialLink(ctx, b, opts.LinkOptions)
}

// unixDialError says why a socket could not be reached.
func unixDialError(path string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("transport: no producer socket at %s (is the producer running?): %w", path, err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("transport: nothing is listening on %s (the producer may have stopped): %w", path, err)
	case errors.Is(err, os.ErrPermission):
		return &fatalError{err: fmt.Errorf("transport: not allowed to connect to %s: %w", path, err),
			words: "Not allowed to connect to the producer's socket."}
	}
	return fmt.Errorf("transport: connect to %s: %w", path, err)
}

// checkProducer refuses a producer socket owned by a process of another
// user (root excepted), where the system tells: it could be anyone's.
func checkProducer(c net.Conn, path string) error {
	uid, ok, err := wire.PeerUID(c)
	if err != nil {
		return fmt.Errorf("transport: %s: %w", path, err)
	}
	if ok && uid != os.Getuid() && uid != 0 {
		return &fatalError{
			err:   fmt.Errorf("transport: the producer at %s runs as user %d, not as you (%d); refusing to trust it", path, uid, os.Getuid()),
			words: "The producer's socket belongs to another user.",
		}
	}
	return nil
}

// streamLink is a message link over a byte stream.
type streamLink struct {
	c       net.Conn
	rd      *wire.Reader // read by the reader goroutine only
	framing wire.Framing // how messages are written
	buf     []byte       // guarded by the caller's write lock
	once    sync.Once
}

func (s *streamLink) read() ([]byte, error) {
	b, err := s.rd.Next()
	var tl *wire.TooLargeError
	if errors.As(err, &tl) {
		return nil, &FrameTooLargeError{Size: tl.Size, Limit: tl.Limit}
	}
	return b, err
}

func (s *streamLink) write(ctx context.Context, msg []byte) error {
	var err error
	if s.buf, err = wire.Append(s.buf[:0], s.framing, msg); err != nil {
		return err
	}
	deadline := time.Now().Add(sendTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = s.c.SetWriteDeadline(deadline)
	_, err = s.c.Write(s.buf)
	return err
}

func (s *streamLink) close(int, string) {
	s.once.Do(func() { s.c.Close() })
}
