// errors.go: the errors every binding shares.

package transport

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/aaep-term/aaep-term/protocol"
)

var (
	// ErrClosed is returned by Recv and Send after Close. It wraps
	// net.ErrClosed, so errors.Is(err, net.ErrClosed) holds as well.
	ErrClosed = fmt.Errorf("transport: connection closed: %w", net.ErrClosed)

	// ErrNoBackChannel is returned by Send on a binding that cannot carry
	// messages to the producer, such as a file.
	ErrNoBackChannel = errors.New("transport: this connection cannot send to the producer")
)

// UnsupportedError reports an endpoint whose binding this build does not
// speak. It wraps errors.ErrUnsupported.
type UnsupportedError struct {
	Binding  string // "WebSocket", "Unix socket", …
	Endpoint string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("transport: the %s binding is not supported yet (endpoint %q)", e.Binding, e.Endpoint)
}

func (e *UnsupportedError) Unwrap() error { return errors.ErrUnsupported }

// HTTPError is a non-2xx answer from a producer's HTTP endpoint. Code and
// Message come from the "error" and "message" members of a JSON body, when
// the producer sent one. Status, Code and Message are the producer's
// untrusted text; Error returns the whole message sanitized as one line,
// since errors are printed.
type HTTPError struct {
	Method     string // "GET" or "POST"
	URL        string
	StatusCode int
	Status     protocol.Text // as sent, e.g. "400 Bad Request"
	Code       protocol.Text // the body's "error" member, if any
	Message    protocol.Text // the body's "message" member, if any
}

func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "transport: %s %s: the producer answered %s", e.Method, e.URL, e.Status.Unsafe())
	if e.Code != "" {
		b.WriteString(": ")
		b.WriteString(e.Code.Unsafe())
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message.Unsafe())
	}
	return protocol.Line(b.String())
}

// FrameTooLargeError reports one message that was longer than the limit and
// was skipped without being kept in memory. It is not fatal: the reader or
// connection that returned it goes on with the next message.
type FrameTooLargeError struct {
	Size  int64  // bytes of the message seen before it ended (its data only)
	Limit int    // the limit in force
	ID    string // the SSE last event ID when the message ended, if any
}

func (e *FrameTooLargeError) Error() string {
	s := fmt.Sprintf("transport: skipped a message of %d bytes (the limit is %d)", e.Size, e.Limit)
	if e.ID != "" {
		s += " with id " + e.ID
	}
	return s
}

// IsLoopback reports whether host (a name or an IP address, without a
// port) is this machine: localhost, a name under .localhost, or a loopback
// address.
func IsLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// plainWarning is the warning for an unencrypted endpoint on another host,
// or "" when u is encrypted or on this machine.
func plainWarning(u *url.URL) string {
	if u.Scheme != "http" && u.Scheme != "ws" {
		return ""
	}
	if IsLoopback(u.Hostname()) {
		return ""
	}
	secure := "https://"
	if u.Scheme == "ws" {
		secure = "wss://"
	}
	return fmt.Sprintf("The connection to %s is not encrypted: anyone on the network between you can read the events "+
		"and your answers, and change them. Use %s if the producer offers it.", u.Host, secure)
}
