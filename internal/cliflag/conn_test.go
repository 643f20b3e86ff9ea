package cliflag

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/transport"
)

// TestConn holds the connection flags every command that connects to a
// producer shares: the token from --token or else AAEP_TOKEN, headers,
// layouts, the connect timeout, and bad values refused as usage errors.
func TestConn(t *testing.T) {
	env := func(token string) func(string) string {
		return func(k string) string {
			if k == "AAEP_TOKEN" {
				return token
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		which   ConnFlag
		args    []string
		env     string
		token   string
		header  string // NAME=VALUE of one header, "" for none
		layout  transport.Layout
		timeout time.Duration
		noSub   bool
		usage   bool // a usage error
	}{
		{name: "defaults", which: ConnAll, timeout: transport.DefaultHeaderTimeout},
		{name: "env token", which: ConnAll, env: "from-env", token: "from-env", timeout: transport.DefaultHeaderTimeout},
		{name: "flag beats env", which: ConnAll, args: []string{"--token", "from-flag"}, env: "from-env", token: "from-flag", timeout: transport.DefaultHeaderTimeout},
		{name: "header", args: []string{"--header", "X-Agent: mail"}, header: "X-Agent=mail"},
		{name: "header without colon", args: []string{"--header", "X-Agent"}, usage: true},
		{name: "header without name", args: []string{"--header", ":v"}, usage: true},
		{name: "layout spec", which: ConnLayout, args: []string{"--layout", "spec"}, layout: transport.LayoutSpec},
		{name: "layout legacy", which: ConnLayout, args: []string{"--layout", "legacy"}, layout: transport.LayoutLegacy},
		{name: "layout auto", which: ConnLayout, args: []string{"--layout", "auto"}, layout: transport.LayoutAuto},
		{name: "layout bad", which: ConnLayout, args: []string{"--layout", "sideways"}, usage: true},
		{name: "layout not offered", args: []string{"--layout", "spec"}, usage: true},
		{name: "timeout", which: ConnTimeout, args: []string{"--connect-timeout", "3s"}, timeout: 3 * time.Second},
		{name: "timeout bad", which: ConnTimeout, args: []string{"--connect-timeout", "soon"}, usage: true},
		{name: "no subprotocol", which: ConnWSNoSubprotocol, args: []string{"--ws-no-subprotocol"}, noSub: true},
		{name: "no subprotocol not offered", args: []string{"--ws-no-subprotocol"}, usage: true},
		{name: "cert without key", which: ConnTLS, args: []string{"--cert", "c.pem"}, usage: true},
		{name: "tls not offered", args: []string{"--ca", "ca.pem"}, usage: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Conn
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.Register(fs, tc.which)
			_, err := Parse(fs, tc.args)
			if err == nil {
				err = c.Load(env(tc.env))
			}
			var ue *UsageError
			if tc.usage {
				if !errors.As(err, &ue) {
					t.Fatalf("got %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			opts := c.Transport()
			if opts.SSE.Token != tc.token || c.Token != tc.token {
				t.Errorf("token %q, want %q", opts.SSE.Token, tc.token)
			}
			if opts.SSE.Layout != tc.layout {
				t.Errorf("layout %v, want %v", opts.SSE.Layout, tc.layout)
			}
			if opts.SSE.HeaderTimeout != tc.timeout {
				t.Errorf("timeout %v, want %v", opts.SSE.HeaderTimeout, tc.timeout)
			}
			if opts.WebSocket.NoSubprotocol != tc.noSub {
				t.Errorf("no subprotocol %v", opts.WebSocket.NoSubprotocol)
			}
			if tc.header != "" {
				name, value, _ := strings.Cut(tc.header, "=")
				if got := opts.SSE.Header.Get(name); got != value {
					t.Errorf("header %s: %q, want %q", name, got, value)
				}
			} else if len(opts.SSE.Header) != 0 {
				t.Errorf("headers %v, want none", opts.SSE.Header)
			}
			if opts.SSE.HTTPClient != nil || opts.WebSocket.TLSConfig != nil {
				t.Errorf("TLS set without a TLS flag")
			}
		})
	}
}

// TestConnCredentials: the warning for a connection nothing authenticates
// is said from the same flags the connection uses.
func TestConnCredentials(t *testing.T) {
	var c Conn
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Register(fs, ConnAll)
	if _, err := Parse(fs, nil); err != nil {
		t.Fatal(err)
	}
	if c.Credentials("https://agents.example") == "" {
		t.Error("no warning without credentials")
	}
	c.Token = "t"
	if w := c.Credentials("https://agents.example"); w != "" {
		t.Errorf("warning with a token: %q", w)
	}
}

// TestConnHelp: every flag Register offers has its help line, and the
// optional ones only when asked for.
func TestConnHelp(t *testing.T) {
	help := func(which ConnFlag) string {
		var c Conn
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c.Register(fs, which)
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		return b.String()
	}
	all := help(ConnAll)
	for _, f := range []string{"-token TOKEN", "-header NAME:VALUE", "-layout LAYOUT", "-connect-timeout", "-ws-no-subprotocol", "-ca FILE", "-cert FILE", "-client-key FILE", "AAEP_TOKEN"} {
		if !strings.Contains(all, f) {
			t.Errorf("help lacks %q:\n%s", f, all)
		}
	}
	least := help(0)
	for _, f := range []string{"-layout", "-connect-timeout", "-ws-no-subprotocol", "-ca "} {
		if strings.Contains(least, f) {
			t.Errorf("help has %q though not asked for", f)
		}
	}
}
