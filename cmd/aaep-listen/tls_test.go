package main

import (
	"crypto/tls"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// serveTLS serves a producer over TLS with the test PKI's server
// certificate; clientAuth says whether a client certificate is required.
func serveTLS(t *testing.T, pki *testPKI, clientAuth tls.ClientAuthType) (*producer.Producer, string) {
	t.Helper()
	p := producer.New(producer.Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true})
	srv := httptest.NewUnstartedServer(p)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Server}, ClientAuth: clientAuth, ClientCAs: pki.Pool}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	srv.StartTLS()
	t.Cleanup(func() { p.Close(); srv.Close() })
	return p, srv.URL
}

// https:// and wss:// with --ca, and mutual TLS with --cert and
// --client-key; without the CA, or without a client certificate where one
// is required, the listener does not connect.
func TestTLS(t *testing.T) {
	t.Parallel()
	pki := newPKI(t)
	for _, tc := range []struct {
		name    string
		mutual  bool
		ws      bool
		args    []string
		connect bool
		stderr  string
	}{
		{"sse with ca", false, false, []string{"--ca", pki.CAFile}, true, ""},
		{"wss with ca", false, true, []string{"--ca", pki.CAFile}, true, ""},
		{"sse without ca", false, false, nil, false, "give its certificate authority with --ca FILE"},
		{"wss without ca", false, true, nil, false, "give its certificate authority with --ca FILE"},
		{"sse mutual", true, false, []string{"--ca", pki.CAFile, "--cert", pki.ClientCert, "--client-key", pki.ClientKey}, true, ""},
		{"wss mutual", true, true, []string{"--ca", pki.CAFile, "--cert", pki.ClientCert, "--client-key", pki.ClientKey}, true, ""},
		{"sse mutual without cert", true, false, []string{"--ca", pki.CAFile}, false, "give --cert FILE and --client-key FILE"},
		{"wss mutual without cert", true, true, []string{"--ca", pki.CAFile}, false, "give --cert FILE and --client-key FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auth := tls.NoClientCert
			if tc.mutual {
				auth = tls.RequireAndVerifyClientCert
			}
			p, url := serveTLS(t, pki, auth)
			if tc.ws {
				url = "wss" + strings.TrimPrefix(url, "https") + protocol.PathWebSocket
			}
			args := append([]string{"--plain", "--auto-reply", "reject"}, tc.args...)
			r := startListener(t, append(args, url)...)
			code := r.exitCode(t)
			if tc.connect {
				autoRejected(t, r, p, code)
				return
			}
			if code != 1 || !strings.Contains(r.stderr(), tc.stderr) {
				t.Fatalf("exit %d, want 1 with %q\n%s\n%s", code, tc.stderr, r.stdout(), r.stderr())
			}
			if len(p.Outcomes()) != 0 {
				t.Errorf("a refused connection settled prompts: %+v", p.Outcomes())
			}
		})
	}
}

func TestTLSFlags(t *testing.T) {
	t.Parallel()
	pki := newPKI(t)
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		o    cliflag.TLS
		want string
	}{
		{cliflag.TLS{Cert: pki.ClientCert}, "--cert needs --client-key"},
		{cliflag.TLS{Key: pki.ClientKey}, "--client-key needs --cert"},
		{cliflag.TLS{CA: notPEM}, "holds no PEM certificate"},
		{cliflag.TLS{CA: filepath.Join(t.TempDir(), "missing.pem")}, "--ca:"},
		{cliflag.TLS{Cert: pki.ClientKey, Key: pki.ClientCert}, "--cert " + pki.ClientKey},
	} {
		if err := tc.o.Load(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
	var none cliflag.TLS
	if err := none.Load(); err != nil || none.Config != nil || none.Client != nil {
		t.Errorf("no flags: %v %v", err, none.Config)
	}
	ok := cliflag.TLS{CA: pki.CAFile, Cert: pki.ClientCert, Key: pki.ClientKey}
	if err := ok.Load(); err != nil || ok.Config.RootCAs == nil || len(ok.Config.Certificates) != 1 || ok.Client == nil {
		t.Errorf("%v %+v", err, ok.Config)
	}
}

// autoRejected checks a run that connected: the --auto-reply policy
// rejected prompt 1, the producer settled it so, and the listener exited 0.
func autoRejected(t *testing.T, r *listenerRun, p *producer.Producer, code int) {
	t.Helper()
	if code != 0 || !strings.Contains(r.stdout(), "Your --auto-reply policy rejects prompt 1") {
		t.Fatalf("exit %d\n%s\n%s", code, r.stdout(), r.stderr())
	}
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Rejected {
		t.Errorf("outcomes %+v", outs)
	}
}
