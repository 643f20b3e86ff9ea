package cliflag

import (
	"net/http"
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
