// client.go holds Client, one SSIP connection to speech-dispatcher.

package speech

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/internal/connfail"
)

// Event is an asynchronous SSIP event (701 begin, 702 end, 703 cancelled, …).
type Event struct {
	Code  int
	Lines []string
}

// Client is one SSIP connection. Its methods are safe for concurrent use;
// commands are sent one at a time.
type Client struct {
	conn    net.Conn
	replies chan reply
	events  chan Event // buffered; events are dropped when nobody reads them
	done    chan struct{}

	mu     sync.Mutex      // guards writes and the command/reply exchange
	failed connfail.Reason // why the connection can no longer be used
	closed sync.Once
}

// Dial connects to speech-dispatcher at addr and names the client
// ("user:aaep-listen:main" style). It never starts a daemon.
func Dial(ctx context.Context, addr Address, clientName string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, addr.Network, addr.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrNoDaemon, addr, err)
	}
	c := &Client{conn: conn, replies: make(chan reply), events: make(chan Event, 64), done: make(chan struct{})}
	go c.readLoop()
	if clientName != "" {
		if err := c.Command(ctx, "SET SELF CLIENT_NAME "+clientName); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Events returns the asynchronous events the daemon sends after
// "SET SELF NOTIFICATION ALL on". Events are dropped when the channel is full.
func (c *Client) Events() <-chan Event { return c.events }

func (c *Client) readLoop() {
	defer close(c.done)
	br := bufio.NewReader(c.conn)
	for {
		r, err := readReply(br)
		if err != nil {
			c.fail(fmt.Errorf("speech: connection to speech-dispatcher lost: %w", err))
			return
		}
		if r.isEvent() {
			select {
			case c.events <- Event{Code: r.Code, Lines: r.Lines}:
			default:
			}
			continue
		}
		select {
		case c.replies <- r:
		case <-time.After(5 * time.Second): // nobody waits: a stray reply
		}
	}
}

// fail records why the connection can no longer be used, unless a reason
// is known already, and closes it, which ends the read loop.
func (c *Client) fail(err error) {
	c.failed.Set(err)
	c.conn.Close()
}

// connErr is why the connection ended.
func (c *Client) connErr() error { return c.failed.Or("speech: connection closed") }

// exchange writes data and waits for one reply.
func (c *Client) exchange(ctx context.Context, what, data string) (reply, error) {
	if err := c.failed.Err(); err != nil {
		return reply{}, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.conn.SetWriteDeadline(dl)
	} else {
		c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	}
	// A write cut short, or a reply not waited for, leaves the conversation
	// out of step (the late reply would answer the next command, and a
	// half-sent SPEAK leaves the daemon reading text): the connection is
	// given up, and its owner dials again.
	if _, err := io.WriteString(c.conn, data); err != nil {
		err = fmt.Errorf("speech: %s: %w", what, err)
		c.fail(err)
		return reply{}, err
	}
	select {
	case r := <-c.replies:
		return r, nil
	case <-c.done:
		return reply{}, c.connErr()
	case <-ctx.Done():
		err := fmt.Errorf("speech: %s: %w", what, ctx.Err())
		c.fail(fmt.Errorf("%w; the connection was given up", err))
		return reply{}, err
	}
}

// Command sends one SSIP command line and checks that it succeeded.
func (c *Client) Command(ctx context.Context, line string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.exchange(ctx, line, line+"\r\n")
	if err != nil {
		return err
	}
	if !r.ok() {
		return r.err(line)
	}
	return nil
}

// Speak queues text at the client's current priority and language and returns
// the message id the daemon gave it.
func (c *Client) Speak(ctx context.Context, text string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.exchange(ctx, "SPEAK", "SPEAK\r\n")
	if err != nil {
		return "", err
	}
	if r.Code != 230 {
		return "", r.err("SPEAK")
	}
	r, err = c.exchange(ctx, "SPEAK text", escapeText(text))
	if err != nil {
		return "", err
	}
	if !r.ok() {
		return "", r.err("SPEAK text")
	}
	if len(r.Lines) > 1 {
		return r.Lines[0], nil
	}
	return "", nil
}

// Close says QUIT (briefly) and closes the connection.
func (c *Client) Close() error {
	var err error
	c.closed.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		select {
		case <-c.done:
		default:
			c.mu.Lock()
			c.exchange(ctx, "QUIT", "QUIT\r\n")
			c.mu.Unlock()
		}
		err = c.conn.Close()
		<-c.done
	})
	return err
}
