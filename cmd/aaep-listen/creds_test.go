package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aaep-term/aaep-term/internal/cliflag"
	"github.com/aaep-term/aaep-term/manifest"
	"github.com/aaep-term/aaep-term/protocol"
)

// credSink is a loopback server that records the credentials it is sent
// and answers with a manifest-less 404.
type credSink struct {
	mu   sync.Mutex
	seen []string
}

func (s *credSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for _, k := range []string{"Authorization", "X-Secret"} {
		if v := r.Header.Get(k); v != "" {
			s.seen = append(s.seen, r.URL.Path+": "+k+"="+v)
		}
	}
	s.mu.Unlock()
	http.NotFound(w, r)
}

func (s *credSink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// TestManifestFetchCredentials fetches the manifest of a producer (the
// origin the user named) whose manifest_uri, or whose well-known manifest
// by a redirect, is on another port: that port never sees the bearer
// token or a --header, and the producer's own origin does.
func TestManifestFetchCredentials(t *testing.T) {
	t.Parallel()
	other := &credSink{}
	otherSrv := httptest.NewServer(other)
	t.Cleanup(otherSrv.Close)
	own := &credSink{}
	ownSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == protocol.PathManifest {
			http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusFound)
			return
		}
		own.ServeHTTP(w, r)
	}))
	t.Cleanup(ownSrv.Close)
	o := &options{Conn: cliflag.Conn{Token: "tok", Header: http.Header{"X-Secret": {"hush"}}}}
	for _, uri := range []string{
		otherSrv.URL + "/manifest.json", // manifest_uri on another port
		"",                              // the well-known path, redirected to another port
		ownSrv.URL + "/manifest.json",   // the producer's own origin: credentials go
	} {
		f := o.manifestConfig().Finder(ownSrv.URL)
		_ = f.Find(context.Background(), manifest.Sources{URI: uri, Endpoint: ownSrv.URL}, manifest.Offering{})
	}
	if got := other.got(); len(got) != 0 {
		t.Errorf("the server on another port received credentials: %q", got)
	}
	if got := own.got(); len(got) != 2 {
		t.Errorf("the producer's own origin received %q, want the token and the header", got)
	}
}
