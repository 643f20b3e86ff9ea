// ws.go: the WebSocket binding (appendix B.2): one text frame per message,
// subprotocol aaep.v1, AAEP close codes 4000–4005 in plain words.

package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/creds"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// CloseWords says what a WebSocket close code means, in plain words.
func CloseWords(code int) string {
	switch code {
	case protocol.CloseNormal:
		return "the connection was closed normally"
	case protocol.CloseGoingAway:
		return "the producer is going away (shutting down or restarting)"
	case protocol.CloseProtocol:
		return "the other side saw a WebSocket protocol error"
	case protocol.CloseUnsupported:
		return "the other side cannot take this kind of data"
	case protocol.CloseNoStatus:
		return "the connection was closed without a reason"
	case protocol.CloseAbnormal:
		return "the connection dropped without a goodbye"
	case protocol.CloseBadData:
		return "a message was not valid text"
	case protocol.ClosePolicy:
		return "the other side refused a message that breaks its policy"
	case protocol.CloseTooBig:
		return "a message was too large for the other side"
	case protocol.CloseInternal:
		return "the producer hit an internal error"
	case protocol.CloseRestart:
		return "the producer is restarting"
	case protocol.CloseTryLater:
		return "the producer is overloaded; try again later"
	case protocol.CloseSubscriptionEnded:
		return "the subscription was closed cleanly"
	case protocol.CloseRejected:
		return "the producer rejected the subscription"
	case protocol.CloseAuthFailed:
		return "authentication failed: check the token"
	case protocol.CloseDenied:
		return "authorization was denied: these credentials may not subscribe"
	case protocol.CloseViolation:
		return "the producer ended the subscription because it saw a protocol violation"
	case protocol.CloseBySubscriber:
		return "the subscriber ended the subscription"
	}
	switch {
	case code >= 4000 && code < 5000:
		return fmt.Sprintf("the producer closed the connection with its own code %d", code)
	case code >= 3000 && code < 4000:
		return fmt.Sprintf("the connection was closed with registered code %d", code)
	}
	return fmt.Sprintf("the connection was closed with code %d", code)
}

// CloseError is a WebSocket connection the producer closed with a code that
// forbids reconnecting (4002, 4003, 4004, and policy or protocol errors).
// Reason is the producer's text, sanitized.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	s := fmt.Sprintf("transport: the producer closed the WebSocket with code %d: %s", e.Code, CloseWords(e.Code))
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}

// closeSentence is the producer's close in one sentence for the user.
func closeSentence(code int, reason string) string {
	s := "The producer closed the connection: " + CloseWords(code)
	if reason = cleanLine(reason, 200); reason != "" {
		s += " (" + reason + ")"
	}
	return s + "."
}

// WSOptions configures DialWebSocket. The zero value is usable.
type WSOptions struct {
	LinkOptions

	// Token, if not empty, is sent as "Authorization: Bearer <Token>".
	Token string
	// Header holds extra headers for the opening handshake.
	Header http.Header
	// NoSubprotocol accepts a producer that does not agree to the aaep.v1
	// subprotocol (it is still offered). By default such a producer is
	// refused, since the spec requires the subprotocol.
	NoSubprotocol bool
	// TLSConfig is used for wss:// endpoints; nil means the defaults.
	TLSConfig *tls.Config
	// HeaderTimeout bounds the opening handshake, as SSEOptions.HeaderTimeout
	// bounds the wait for response headers. Zero means DefaultHeaderTimeout;
	// negative, no limit.
	HeaderTimeout time.Duration
	// PingInterval is how often the connection pings the producer; a
	// producer that sends nothing, not even a pong, for two intervals is
	// taken for lost and the connection is made again. Zero means
	// DefaultPingInterval; negative means no pings and no such check.
	PingInterval time.Duration
}

// DefaultPingInterval is WSOptions.PingInterval's default.
const DefaultPingInterval = 30 * time.Second

// DialWebSocket connects to a producer at a ws:// or wss:// URL (without a
// path, protocol.PathWebSocket is used), sends the subscription request as the first
// frame and returns once connected; ctx bounds this first connection. See
// LinkOptions for the handshake and reconnects.
//
// The producer's close codes decide what follows a lost connection: 4000,
// 4001, 4005 and 1000 end the connection (Recv returns io.EOF); 4002, 4003,
// 4004 and protocol or policy errors end it with a *CloseError; anything
// else, or a drop, reconnects and runs the handshake again.
func DialWebSocket(ctx context.Context, endpoint string, opts WSOptions) (Conn, error) {
	ep, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if ep.Binding != BindingWebSocket {
		return nil, fmt.Errorf("transport: %q is not a ws:// or wss:// URL", endpoint)
	}
	return dialWebSocket(ctx, ep.URL, opts)
}

// dialWebSocket is DialWebSocket to a URL ParseEndpoint made.
func dialWebSocket(ctx context.Context, u *url.URL, opts WSOptions) (Conn, error) {
	cp := *u
	u = &cp
	if u.Path == "" || u.Path == "/" {
		u.Path = protocol.PathWebSocket
	}
	header := http.Header{}
	creds.New(u, opts.Token, opts.Header).Apply(header, u) // the dialer follows no redirect
	d := &websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: headerTimeout(opts.HeaderTimeout),
		Subprotocols:     []string{protocol.Subprotocol},
		TLSClientConfig:  opts.TLSConfig,
	}
	target := u.String()
	max := opts.withDefaults().MaxFrameBytes
	ping := opts.PingInterval
	if ping == 0 {
		ping = DefaultPingInterval
	}
	b := binding{
		name: "WebSocket",
		dial: func(ctx context.Context, _ func(string)) (link, error) {
			l, err := dialWS(ctx, d, target, header, !opts.NoSubprotocol, max)
			if err == nil && ping > 0 {
				l.keepAlive(ping)
			}
			return l, err
		},
		end:     wsEnding,
		warning: plainWarning(u),
	}
	return dialLink(ctx, b, opts.LinkOptions)
}

func dialWS(ctx context.Context, d *websocket.Dialer, target string, header http.Header, strict bool, max int) (*wsLink, error) {
	c, resp, err := d.DialContext(ctx, target, header)
	if err != nil {
		if resp != nil && errors.Is(err, websocket.ErrBadHandshake) {
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
			req := &http.Request{Method: http.MethodGet, URL: resp.Request.URL}
			he := httpError(req, resp.Status, resp.StatusCode, body)
			if resp.StatusCode/100 == 4 {
				return nil, &fatalError{err: he, words: "The producer refused the WebSocket connection."}
			}
			return nil, he
		}
		return nil, fmt.Errorf("transport: connect to %s: %w", target, err)
	}
	if strict && c.Subprotocol() != protocol.Subprotocol {
		_ = c.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(protocol.CloseProtocol, "the "+protocol.Subprotocol+" subprotocol is required"), time.Now().Add(time.Second))
		c.Close()
		got := "none"
		if c.Subprotocol() != "" {
			got = fmt.Sprintf("%q", c.Subprotocol())
		}
		return nil, &fatalError{
			err: fmt.Errorf("transport: the producer at %s did not agree to the %s WebSocket subprotocol (it chose %s); "+
				"it may not speak AAEP, or be an older one: allow it with the no-subprotocol option", target, protocol.Subprotocol, got),
			words: "The producer did not agree to the " + protocol.Subprotocol + " subprotocol.",
		}
	}
	return &wsLink{c: c, max: max, stop: make(chan struct{})}, nil
}

// wsEnding judges the end of a WebSocket by its close code.
func wsEnding(err error) (ending, bool) {
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return ending{}, false
	}
	words := closeSentence(ce.Code, ce.Text)
	switch ce.Code {
	case protocol.CloseNormal, protocol.CloseSubscriptionEnded:
		return ending{final: io.EOF, words: words, reason: EndNormal}, true
	case protocol.CloseRejected:
		return ending{final: io.EOF, words: words, reason: EndRejected}, true
	case protocol.CloseBySubscriber:
		return ending{final: io.EOF, words: words, reason: EndClosed}, true
	case protocol.CloseAuthFailed, protocol.CloseDenied, protocol.CloseViolation, protocol.CloseProtocol, protocol.CloseUnsupported, protocol.CloseBadData, protocol.ClosePolicy, protocol.CloseTooBig:
		return ending{final: &CloseError{Code: ce.Code, Reason: cleanLine(ce.Text, 200)}, words: words}, true
	}
	return ending{words: words}, true // reconnect
}

// wsLink is one WebSocket connection.
type wsLink struct {
	c     *websocket.Conn
	max   int
	alive time.Duration // with pings, how long the producer may stay silent; else 0
	stop  chan struct{} // closed by close
	once  sync.Once
}

// keepAlive pings the producer every interval and makes read fail when it
// stays silent for two.
func (w *wsLink) keepAlive(interval time.Duration) {
	w.alive = 2 * interval
	_ = w.c.SetReadDeadline(time.Now().Add(w.alive))
	w.c.SetPongHandler(func(string) error { return w.c.SetReadDeadline(time.Now().Add(w.alive)) })
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if w.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(interval/2)) != nil {
					return
				}
			case <-w.stop:
				return
			}
		}
	}()
}

func (w *wsLink) read() ([]byte, error) {
	_, r, err := w.c.NextReader()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && w.alive > 0 {
			return nil, fmt.Errorf("the producer sent nothing, not even an answer to a ping, for %s: %w", w.alive, err)
		}
		return nil, err
	}
	if w.alive > 0 {
		_ = w.c.SetReadDeadline(time.Now().Add(w.alive))
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(w.max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > w.max {
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			return nil, err
		}
		return nil, &FrameTooLargeError{Size: int64(len(data)) + n, Limit: w.max}
	}
	return data, nil
}

func (w *wsLink) write(ctx context.Context, msg []byte) error {
	deadline := time.Now().Add(sendTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = w.c.SetWriteDeadline(deadline)
	return w.c.WriteMessage(websocket.TextMessage, msg)
}

func (w *wsLink) close(code int, reason string) {
	w.once.Do(func() {
		close(w.stop)
		_ = w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
		w.c.Close()
	})
}

// sendTimeout bounds one write when the caller's context has no deadline.
const sendTimeout = 10 * time.Second

// cleanLine makes producer text fit one diagnostic line: sanitized, line
// breaks and tabs as spaces, at most max bytes.
func cleanLine(s string, max int) string {
	s = protocol.Sanitize(s)
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a character
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
