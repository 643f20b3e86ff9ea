package cliflag

// conn.go: the flags of a connection to a producer (--token, --header,
// --layout, --connect-timeout, --ws-no-subprotocol and the TLS flags),
// declared and turned into transport options in this one place for every
// command that connects to one.

import (
	"flag"
	"net/http"
	"time"

	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// ConnFlag picks the connection flags beyond --token and --header, which
// every connecting command offers.
type ConnFlag uint

const (
	ConnLayout          ConnFlag = 1 << iota // --layout
	ConnTimeout                              // --connect-timeout
	ConnWSNoSubprotocol                      // --ws-no-subprotocol
	ConnTLS                                  // --ca, --cert, --client-key

	// ConnAll is every connection flag.
	ConnAll = ConnLayout | ConnTimeout | ConnWSNoSubprotocol | ConnTLS
)

// Conn is how a command connects to a producer, as its flags say.
type Conn struct {
	// HelpPrefix starts each flag's help, as "with --recheck, " does
	// where the connection is only made with another flag. Set it before
	// Register.
	HelpPrefix string

	Token  string      // --token, else AAEP_TOKEN (Load)
	Header http.Header // --header, checked as parsed
	Layout transport.Layout
	// ConnectTimeout bounds the wait for the producer's answer on each
	// connection (transport.SSEOptions.HeaderTimeout); zero is
	// transport.DefaultHeaderTimeout.
	ConnectTimeout time.Duration
	// WSNoSubprotocol accepts a WebSocket producer that does not agree to
	// the aaep.v1 subprotocol.
	WSNoSubprotocol bool

	TLS TLS // --ca, --cert, --client-key
}

// Register defines --token and --header on fs, and the flags which picks.
func (c *Conn) Register(fs *flag.FlagSet, which ConnFlag) {
	p := c.HelpPrefix
	fs.StringVar(&c.Token, "token", "", p+"bearer `TOKEN` sent to the producer (or set AAEP_TOKEN)")
	if c.Header == nil {
		c.Header = http.Header{}
	}
	fs.Var(Header(c.Header), "header", p+"extra HTTP header `NAME:VALUE` (repeatable)")
	if which&ConnLayout != 0 {
		fs.Var(&c.Layout, "layout", p+"HTTP `LAYOUT`: auto, spec (appendix B) or legacy (GET /events) (default auto)")
	}
	if which&ConnTimeout != 0 {
		fs.DurationVar(&c.ConnectTimeout, "connect-timeout", transport.DefaultHeaderTimeout, p+"how long to wait for the producer to answer a connection (a subscription request, or to take the event stream's request: its headers may come later, with the first event) before giving up on it (or, on a reconnect, trying again)")
	}
	if which&ConnWSNoSubprotocol != 0 {
		fs.BoolVar(&c.WSNoSubprotocol, "ws-no-subprotocol", false, p+"accept a WebSocket producer that does not agree to the aaep.v1 subprotocol")
	}
	if which&ConnTLS != 0 {
		c.TLS.AddFlags(fs)
	}
}

// SettleToken takes the token from AAEP_TOKEN (read by getenv) when
// --token did not give one.
func (c *Conn) SettleToken(getenv func(string) string) {
	if c.Token == "" {
		c.Token = getenv("AAEP_TOKEN")
	}
}

// Load settles the token (SettleToken) and loads the TLS files the flags
// name; their faults are usage errors.
func (c *Conn) Load(getenv func(string) string) error {
	c.SettleToken(getenv)
	return Usage(c.TLS.Load())
}

// Transport is the transport options the flags say: the SSE ones carry
// the token, headers, layout, timeout and TLS client, the WebSocket ones
// the subprotocol choice and TLS configuration (gRPC takes both from
// them).
func (c *Conn) Transport() transport.Options {
	return transport.Options{
		SSE: transport.SSEOptions{
			Layout:        c.Layout,
			Token:         c.Token,
			Header:        c.Header,
			HTTPClient:    c.TLS.Client,
			HeaderTimeout: c.ConnectTimeout,
		},
		WebSocket:   transport.WSOptions{NoSubprotocol: c.WSNoSubprotocol, TLSConfig: c.TLS.Config},
		GRPCBinding: grpcbind.Binding{},
	}
}

// Credentials is the warning for a connection to endpoint on which
// nothing proves who the subscriber is (CredentialsWarning); "" when
// something does.
func (c *Conn) Credentials(endpoint string) string {
	return CredentialsWarning(endpoint, c.Token, c.Header, c.TLS.Cert != "")
}
