package cliflag

// tls.go: TLS for https://, wss:// and grpcs:// endpoints (--ca, --cert,
// --client-key), what to do about a TLS failure, and the warning for a
// connection on which nothing proves who the subscriber is.

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"

	"github.com/aaep-term/aaep-term/transport"
)

// TLS are the TLS flags and what they load. The client certificate's key
// is --client-key because --key is the reply-signing key.
type TLS struct {
	CA   string // --ca: PEM file of the certificate authorities to trust
	Cert string // --cert: PEM client certificate, for mutual TLS
	Key  string // --client-key: its PEM private key

	Config *tls.Config  // set by Load; nil without any TLS flag: the system defaults
	Client *http.Client // with Config; nil without any TLS flag
}

// AddFlags defines --ca, --cert and --client-key on fs.
func (o *TLS) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.CA, "ca", "", "trust only the certificate authorities in PEM `FILE` for https://, wss:// and grpcs:// (default: the system's)")
	fs.StringVar(&o.Cert, "cert", "", "client certificate PEM `FILE` for mutual TLS (with --client-key)")
	fs.StringVar(&o.Key, "client-key", "", "private key PEM `FILE` of the --cert client certificate")
}

// Load reads the files the flags name into Config and Client; without any,
// nothing changes. A certificate without its key, or a key without its
// certificate, is a usage error.
func (o *TLS) Load() error {
	if o.CA == "" && o.Cert == "" && o.Key == "" {
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CA != "" {
		pem, err := os.ReadFile(o.CA)
		if err != nil {
			return fmt.Errorf("--ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--ca: %s holds no PEM certificate", o.CA)
		}
		cfg.RootCAs = pool
	}
	switch {
	case o.Cert != "" && o.Key != "":
		pair, err := tls.LoadX509KeyPair(o.Cert, o.Key)
		if err != nil {
			return fmt.Errorf("--cert %s with --client-key %s: %w", o.Cert, o.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case o.Cert != "":
		return Usagef("--cert needs --client-key, the certificate's private key")
	case o.Key != "":
		return Usagef("--client-key needs --cert, the client certificate")
	}
	o.Config = cfg
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	o.Client = &http.Client{Transport: tr}
	return nil
}

// Hint is a sentence, to print on a line of its own, on what to do about the
// commonest reasons a connection fails: nothing listening, a Unix socket
// that is not there, TLS; "" for any other err.
func Hint(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) && strings.Contains(err.Error(), "unix"):
		return "Nothing is listening there. Is the agent running? To try the built-in demo: aaep-replay serve --demo"
	}
	return tlsHint(err)
}

// tlsHint is Hint for a TLS failure in err; "" when err is no TLS failure.
func tlsHint(err error) string {
	var unknown x509.UnknownAuthorityError
	var invalid x509.HostnameError
	s := err.Error()
	switch {
	case errors.As(err, &unknown) || strings.Contains(s, "certificate signed by unknown authority"):
		return "The producer's certificate is not signed by an authority you trust: give its certificate authority with --ca FILE."
	case errors.As(err, &invalid) || strings.Contains(s, "certificate is valid for"):
		return "The producer's certificate is for another name than the one in the endpoint: use the name it was issued for."
	case strings.Contains(s, "certificate required") || strings.Contains(s, "bad certificate") && !strings.Contains(s, "failed to verify"):
		return "The producer wants a client certificate it trusts (mutual TLS): give --cert FILE and --client-key FILE."
	}
	return ""
}

// CredentialsWarning is one line for a network endpoint on another host
// that the subscriber reaches without a token, an Authorization header or
// a client certificate (clientCert); "" otherwise.
func CredentialsWarning(endpoint, token string, header http.Header, clientCert bool) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || token != "" || header.Get("Authorization") != "" || clientCert {
		return ""
	}
	switch b := transport.BindingOf(endpoint); {
	case b != transport.BindingSSE && b != transport.BindingWebSocket:
		return ""
	case transport.IsLoopback(u.Hostname()):
		return ""
	}
	return fmt.Sprintf("Nothing proves to %s who you are: no token (--token) and no client certificate (--cert); "+
		"it cannot tell your answers from anyone else's.", u.Host)
}
