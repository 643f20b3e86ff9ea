package cliflag

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

func TestCredentialWarning(t *testing.T) {
	bearer := http.Header{"Authorization": {"Bearer x"}}
	for _, tc := range []struct {
		endpoint string
		token    string
		header   http.Header
		cert     bool
		warn     bool
	}{
		{"https://agents.example:8443", "", nil, false, true},
		{"wss://agents.example", "", nil, false, true},
		{"http://10.0.0.5:8080", "", nil, false, true},
		{"https://agents.example", "t", nil, false, false},
		{"https://agents.example", "", bearer, false, false},
		{"https://agents.example", "", nil, true, false},
		{"http://127.0.0.1:8080", "", nil, false, false},
		{"ws://[::1]:8080", "", nil, false, false},
		{"http://localhost:8080", "", nil, false, false},
		{"http://agent.localhost", "", nil, false, false},
		{"unix:agent", "", nil, false, false},
		{"exec:./agent", "", nil, false, false},
		{"file:x.ndjson", "", nil, false, false},
	} {
		w := CredentialsWarning(tc.endpoint, tc.token, tc.header, tc.cert)
		if (w != "") != tc.warn {
			t.Errorf("%s %+v: %q", tc.endpoint, tc, w)
		}
		if w != "" && (!strings.Contains(w, "no token (--token) and no client certificate (--cert)") || strings.ContainsRune(w, 0x1b)) {
			t.Errorf("warning %q", w)
		}
	}
}

// The hint for each common failure, from real dial errors where one can
// be made here.
func TestHint(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, refused := net.Dial("tcp", closed)
	_, noSocket := net.Dial("unix", filepath.Join(t.TempDir(), "agent.sock"))
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"none", nil, ""},
		{"refused", fmt.Errorf("connect to http://%s: %w", closed, refused), "Nothing is listening there. Is the agent running?"},
		{"no socket", fmt.Errorf("connect: %w", noSocket), "aaep-replay serve --demo"},
		{"unknown authority", fmt.Errorf("connect: %w", x509.UnknownAuthorityError{}), "--ca FILE"},
		{"other", errors.New("the producer refused the subscription"), ""},
	} {
		got := Hint(c.err)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: Hint(%v) = %q, want %q", c.name, c.err, got, c.want)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("%s: the hint is not one line: %q", c.name, got)
		}
	}
}
