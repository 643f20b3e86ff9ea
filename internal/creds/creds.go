// Package creds attaches the user's credentials (a bearer token and the
// extra headers given with --header) to HTTP requests, and only to requests
// for the origin the user named: the same scheme, host and port. A
// redirect, a subscription Location or a manifest_uri on another origin
// gets none of them.
//
// Every HTTP request aaep-term makes with credentials goes through Set.Apply,
// and every client it makes them with through Set.Client, which also strips
// them from a redirect to another origin: net/http forwards custom headers
// on every redirect, and Authorization to another port or scheme of the
// same host name and to its subdomains.
package creds

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Set is the credentials for one origin. The zero value and nil hold none.
type Set struct {
	origin url.URL // scheme and host only
	token  string
	header http.Header
}

// New returns the credentials token (sent as "Authorization: Bearer
// token" when not empty) and header for the origin of base, an absolute
// URL. When base has no host, the set holds nothing: credentials go
// nowhere rather than anywhere.
func New(base *url.URL, token string, header http.Header) *Set {
	if base == nil || base.Host == "" {
		return &Set{}
	}
	s := &Set{origin: url.URL{Scheme: base.Scheme, Host: base.Host}, token: token}
	for k, v := range header {
		if s.header == nil {
			s.header = http.Header{}
		}
		s.header[http.CanonicalHeaderKey(k)] = slices.Clone(v)
	}
	return s
}

// Empty reports whether the set holds no credentials.
func (s *Set) Empty() bool { return s == nil || s.token == "" && len(s.header) == 0 }

// For reports whether u is on the set's origin, the only one its
// credentials are sent to.
func (s *Set) For(u *url.URL) bool {
	return s != nil && s.origin.Host != "" && u != nil && SameOrigin(&s.origin, u)
}

// Apply puts the credentials in h, the headers of a request for u, when u
// is on the set's origin; otherwise it leaves h alone. Headers the caller
// sets after Apply win over the --header ones.
func (s *Set) Apply(h http.Header, u *url.URL) {
	if !s.For(u) {
		return
	}
	for k, v := range s.header {
		h[k] = slices.Clone(v)
	}
	if s.token != "" {
		h.Set("Authorization", "Bearer "+s.token)
	}
}

// Client returns a copy of c (http.DefaultClient's settings when c is nil)
// whose redirects to another origin carry none of the credentials. A
// CheckRedirect of c still runs after that.
func (s *Set) Client(c *http.Client) *http.Client {
	var cp http.Client
	if c != nil {
		cp = *c
	}
	next := cp.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		s.strip(req)
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects") // net/http's own limit
		}
		return nil
	}
	return &cp
}

// strip removes the credentials from a redirected request that leaves the
// origin. A header the caller set over a --header one (Accept, say) has
// another value and stays.
func (s *Set) strip(req *http.Request) {
	if s.For(req.URL) {
		return
	}
	req.Header.Del("Authorization")
	if s == nil {
		return
	}
	for k, v := range s.header {
		if slices.Equal(req.Header[k], v) {
			delete(req.Header, k)
		}
	}
}

// SameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), a missing port being the scheme's default one. A WebSocket
// endpoint's origin is its HTTP one (ws is http, wss is https): its
// handshake and its well-known manifest are served there.
func SameOrigin(a, b *url.URL) bool {
	sa, pa := schemePort(a)
	sb, pb := schemePort(b)
	return sa == sb && pa == pb && strings.EqualFold(a.Hostname(), b.Hostname())
}

// schemePort is u's scheme (ws as http, wss as https) and port, the
// scheme's default one when u has none.
func schemePort(u *url.URL) (scheme, port string) {
	scheme, port = strings.ToLower(u.Scheme), u.Port()
	switch scheme {
	case "ws":
		scheme = "http"
	case "wss":
		scheme = "https"
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme, port
}
