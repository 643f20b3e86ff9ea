// client.go holds Client, one BrlAPI connection to BRLTTY.

package braille

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aaep-term/aaep-term/internal/connfail"
)

// ErrAuth reports that BRLTTY refused the key.
var ErrAuth = errors.New("braille: BrlAPI authentication failed")

// DefaultKeyFile is where BRLTTY keeps its BrlAPI key.
const DefaultKeyFile = "/etc/brlapi.key"

// Options say where BrlAPI is and how to authenticate.
type Options struct {
	// Host is a BRLAPI_HOST value: ":N" for the local socket N (default ":0"),
	// "HOST:N" for TCP port 4101+N, "HOST" for port 4101.
	Host string
	// KeyFile is the key sent when the server asks for one; "" means DefaultKeyFile.
	KeyFile string
	// SocketDir is where local sockets live; "" means /var/lib/BrlAPI.
	SocketDir string
}

// OptionsFromEnv reads BRLAPI_HOST and BRLAPI_AUTH (a key file path or "none").
func OptionsFromEnv(getenv func(string) string) Options {
	o := Options{Host: getenv("BRLAPI_HOST")}
	if a := getenv("BRLAPI_AUTH"); a != "" && a != "none" {
		o.KeyFile = strings.TrimPrefix(a, "keyfile:")
	}
	return o
}

// address turns Host into a network and address.
func (o Options) address() (network, addr string, err error) {
	host := o.Host
	if host == "" {
		host = ":0"
	}
	name, num, hasNum := strings.Cut(host, ":")
	n := 0
	if hasNum && num != "" {
		if n, err = strconv.Atoi(num); err != nil || n < 0 || n > 99 {
			return "", "", fmt.Errorf("braille: bad BrlAPI host %q", host)
		}
	}
	if name == "" {
		dir := o.SocketDir
		if dir == "" {
			dir = "/var/lib/BrlAPI"
		}
		return "unix", dir + "/" + strconv.Itoa(n), nil
	}
	return "tcp", net.JoinHostPort(name, strconv.Itoa(4101+n)), nil
}

// Client is one BrlAPI connection. Its methods are safe for concurrent use;
// requests are sent one at a time. Keys that arrive while a request waits for
// its reply are buffered for ReadKey.
type Client struct {
	conn    net.Conn
	replies chan packet
	keys    chan Key
	done    chan struct{}

	mu sync.Mutex // serializes requests

	errMu     sync.Mutex
	failed    connfail.Reason // why the connection can no longer be used
	exception error           // the last request BRLTTY refused without a reply; guarded by errMu
	once      sync.Once
}

// ErrUnreachable is wrapped by Dial's error when nothing answers at BrlAPI's
// address: BRLTTY is not running there.
var ErrUnreachable = errors.New("nothing listens there")

// Dial connects, checks the protocol version and authenticates.
func Dial(ctx context.Context, o Options) (*Client, error) {
	network, addr, err := o.address()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("braille: BRLTTY's BrlAPI is not reachable at %s: %w: %w", addr, ErrUnreachable, err)
	}
	c := &Client{conn: conn, replies: make(chan packet, 1), keys: make(chan Key, 256), done: make(chan struct{})}
	go c.readLoop()
	if err := c.handshake(ctx, o); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) handshake(ctx context.Context, o Options) error {
	p, err := c.wait(ctx)
	if err != nil {
		return fmt.Errorf("braille: handshake: %w", err)
	}
	if p.Type != typeVersion || len(p.Payload) < 4 {
		return fmt.Errorf("braille: handshake: expected the server's version, got packet %q", rune(p.Type))
	}
	if v := binary.BigEndian.Uint32(p.Payload); v != protocolVersion {
		return fmt.Errorf("braille: BRLTTY speaks BrlAPI protocol %d, this client %d", v, protocolVersion)
	}
	p, err = c.request(ctx, typeVersion, be32(protocolVersion))
	if err != nil {
		return err
	}
	if p.Type != typeAuth {
		return fmt.Errorf("braille: handshake: expected authentication methods, got packet %q", rune(p.Type))
	}
	methods := map[uint32]bool{}
	for i := 0; i+4 <= len(p.Payload); i += 4 {
		methods[binary.BigEndian.Uint32(p.Payload[i:])] = true
	}
	switch {
	case methods[authNone]:
		return nil
	case methods[authKeyFile]:
		path := o.KeyFile
		if path == "" {
			path = DefaultKeyFile
		}
		key, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("braille: BRLTTY asks for its key: %w", err)
		}
		if len(key) > maxPacket-4 {
			return fmt.Errorf("braille: key file %s is too long", path)
		}
		p, err := c.request(ctx, typeAuth, append(be32(authKeyFile), key...))
		if err != nil {
			return err
		}
		if p.Type != typeAck {
			return fmt.Errorf("%w (key file %s)", ErrAuth, path)
		}
		return nil
	}
	return fmt.Errorf("braille: BRLTTY offers no authentication method this client knows")
}

func (c *Client) readLoop() {
	defer close(c.done)
	for {
		p, err := readPacket(c.conn)
		if err != nil {
			c.fail(fmt.Errorf("braille: connection to BRLTTY lost: %w", err))
			return
		}
		if p.Type == typeKey {
			if len(p.Payload) >= 8 {
				select {
				case c.keys <- Key(binary.BigEndian.Uint64(p.Payload)):
				default: // a full buffer: the oldest keys matter more than the newest
				}
			}
			continue
		}
		if p.Type == typeException {
			// BRLTTY refused a packet that has no reply, such as a write.
			c.errMu.Lock()
			c.exception = fmt.Errorf("braille: BRLTTY refused a request: error %d", errorCode(p))
			c.errMu.Unlock()
			continue
		}
		select {
		case c.replies <- p:
		case <-time.After(5 * time.Second):
		}
	}
}

// fail records why the connection can no longer be used, unless a reason
// is known already, and closes it, which ends the read loop.
func (c *Client) fail(err error) {
	c.failed.Set(err)
	c.conn.Close()
}

func (c *Client) connErr() error { return c.failed.Or("braille: connection closed") }

// wait returns the next reply packet.
func (c *Client) wait(ctx context.Context) (packet, error) {
	select {
	case p := <-c.replies:
		return p, nil
	case <-c.done:
		return packet{}, c.connErr()
	case <-ctx.Done():
		// The reply will still come and would answer the next request:
		// the connection is given up, and its owner dials again.
		c.fail(fmt.Errorf("braille: no reply in time (%w); the connection was given up", ctx.Err()))
		return packet{}, ctx.Err()
	}
}

// send writes one packet that has no reply.
func (c *Client) send(ctx context.Context, typ uint32, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.write(ctx, typ, payload)
}

// write puts one packet on the wire; c.mu is held.
func (c *Client) write(ctx context.Context, typ uint32, payload []byte) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(5 * time.Second)
	}
	if err := c.failed.Err(); err != nil {
		return err
	}
	c.conn.SetWriteDeadline(deadline)
	if _, err := c.conn.Write(encodePacket(typ, payload)); err != nil {
		err = fmt.Errorf("braille: send %q: %w", rune(typ), err)
		c.fail(err) // a packet cut short leaves the stream out of step
		return err
	}
	return nil
}

// Exception returns and clears the last refusal BRLTTY reported for a
// request that has no reply (a write), or nil.
func (c *Client) Exception() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	err := c.exception
	c.exception = nil
	return err
}

// request sends a packet and returns the reply, turning error packets into errors.
func (c *Client) request(ctx context.Context, typ uint32, payload []byte) (packet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.write(ctx, typ, payload); err != nil {
		return packet{}, err
	}
	p, err := c.wait(ctx)
	if err != nil {
		return packet{}, fmt.Errorf("braille: %q: %w", rune(typ), err)
	}
	switch p.Type {
	case typeError:
		if typ == typeAuth && errorCode(p) == 17 {
			return p, ErrAuth
		}
		return p, fmt.Errorf("braille: BRLTTY refused %q: error %d", rune(typ), errorCode(p))
	}
	return p, nil
}

// ack sends a request whose reply must be an acknowledgement.
func (c *Client) ack(ctx context.Context, typ uint32, payload []byte) error {
	p, err := c.request(ctx, typ, payload)
	if err != nil {
		return err
	}
	if p.Type != typeAck {
		return fmt.Errorf("braille: %q: expected an acknowledgement, got %q", rune(typ), rune(p.Type))
	}
	return nil
}

// DisplaySize returns the display's columns and rows.
func (c *Client) DisplaySize(ctx context.Context) (cols, rows int, err error) {
	p, err := c.request(ctx, typeSize, nil)
	if err != nil {
		return 0, 0, err
	}
	if p.Type != typeSize || len(p.Payload) < 8 {
		return 0, 0, fmt.Errorf("braille: display size: unexpected packet %q", rune(p.Type))
	}
	return int(binary.BigEndian.Uint32(p.Payload)), int(binary.BigEndian.Uint32(p.Payload[4:])), nil
}

// EnterTTYMode takes the display for the given tty path (none: the root of
// BRLTTY's tree) with keys delivered as BRLTTY commands.
func (c *Client) EnterTTYMode(ctx context.Context, ttys ...int) error {
	b := be32(uint32(len(ttys)))
	for _, t := range ttys {
		b = append(b, be32(uint32(t))...)
	}
	b = append(b, 0) // no driver name: keys come as commands
	return c.ack(ctx, typeEnterTty, b)
}

// LeaveTTYMode gives the display back to BRLTTY.
func (c *Client) LeaveTTYMode(ctx context.Context) error {
	return c.ack(ctx, typeLeaveTty, nil)
}

// Write shows text (UTF-8) from the first cell over width cells, padded with
// spaces or cut to fit; cursor is a 1-based cell, 0 for none.
func (c *Client) Write(ctx context.Context, text string, width, cursor int) error {
	cells := fitCells(text, width)
	b := be32(writeRegion | writeText | writeCursor | writeCharset)
	b = append(b, be32(1)...)
	b = append(b, be32(uint32(width))...)
	b = append(b, be32(uint32(len(cells)))...)
	b = append(b, cells...)
	b = append(b, be32(uint32(cursor))...)
	b = append(b, byte(len("UTF-8")))
	b = append(b, "UTF-8"...)
	// BrlAPI does not acknowledge writes; a refusal comes later as an exception.
	return c.send(ctx, typeWrite, b)
}

// fitCells pads or cuts text to exactly width characters.
func fitCells(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, r := range text {
		if n == width {
			break
		}
		if r == utf8.RuneError || r < ' ' || r == 0x7f {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	for ; n < width; n++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// ReadKey returns the next key pressed, waiting until ctx ends.
func (c *Client) ReadKey(ctx context.Context) (Key, error) {
	select {
	case k := <-c.keys:
		return k, nil
	case <-c.done:
		return 0, c.connErr()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Keys returns the channel of keys pressed, for use in a select.
func (c *Client) Keys() <-chan Key { return c.keys }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		err = c.conn.Close()
		<-c.done
	})
	return err
}
