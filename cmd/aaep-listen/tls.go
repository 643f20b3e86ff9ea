package main

// tls.go: TLS for https:// and wss:// endpoints (--ca, --cert,
// --client-key) and the warning for a connection on which nothing proves
// who the subscriber is.

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

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/transport"
)

// tlsOptions are the TLS flags and what they load. The client certificate
// key is --client-key because --key is the reply-signing key.
type tlsOptions struct {
	CA   string // --ca: PEM file of the certificate authorities to trust
	Cert string // --cert: PEM client certificate, for mutual TLS
	Key  string // --client-key: its PEM private key

	config *tls.Config  // nil without any TLS flag: the system defaults
	client *http.Client // with config; nil without any TLS flag
}

func addTLSFlags(fs *flag.FlagSet, o *tlsOptions) {
	fs.StringVar(&o.CA, "ca", "", "trust only the certificate authorities in PEM `FILE` for https://, wss:// and grpcs:// (default: the system's)")
	fs.StringVar(&o.Cert, "cert", "", "client certificate PEM `FILE` for mutual TLS (with --client-key)")
	fs.StringVar(&o.Key, "client-key", "", "private key PEM `FILE` of the --cert client certificate")
}

// load reads the files the flags name; without any, nothing changes.
func (o *tlsOptions) load() error {
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
		return cliflag.Usagef("--cert needs --client-key, the certificate's private key")
	case o.Key != "":
		return cliflag.Usagef("--client-key needs --cert, the client certificate")
	}
	o.config = cfg
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = cfg
	o.client = &http.Client{Transport: tr}
	return nil
}

// credentialWarning is one line for a network endpoint on another host
// that the subscriber reaches without a token, an Authorization header or a
// client certificate; "" otherwise.
func credentialWarning(o *options, endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || o.Token != "" || o.Header.Get("Authorization") != "" || o.TLS.Cert != "" {
		return ""
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return ""
	}
	if transport.IsLoopback(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("Nothing proves to %s who you are: no token (--token) and no client certificate (--cert); "+
		"it cannot tell your answers from anyone else's.", u.Host)
}

// loadSecurity reads the trusted manifest keys and the TLS files.
func loadSecurity(o *options) error {
	if err := o.Manifest.load(o.Getenv); err != nil {
		return err
	}
	return o.TLS.load()
}

// tlsHint is a sentence on what to do about a TLS failure in err, or "".
func tlsHint(err error) string {
	if err == nil {
		return ""
	}
	var unknown x509.UnknownAuthorityError
	var invalid x509.HostnameError
	s := err.Error()
	switch {
	case errors.As(err, &unknown) || strings.Contains(s, "certificate signed by unknown authority"):
		return "\nThe producer's certificate is not signed by an authority you trust: give its certificate authority with --ca FILE."
	case errors.As(err, &invalid) || strings.Contains(s, "certificate is valid for"):
		return "\nThe producer's certificate is for another name than the one in the endpoint: use the name it was issued for."
	case strings.Contains(s, "certificate required") || strings.Contains(s, "bad certificate") && !strings.Contains(s, "failed to verify"):
		return "\nThe producer wants a client certificate it trusts (mutual TLS): give --cert FILE and --client-key FILE."
	}
	return ""
}
