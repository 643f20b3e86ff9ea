// Package modeltest is what the scripted model servers (anthropictest,
// openaitest) share: an HTTP server on a loopback port that keeps one
// line per request served, for a test's failure message.
package modeltest

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Server is a running loopback HTTP server. Close it when done.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string

	srv  *http.Server
	done chan struct{}

	mu       sync.Mutex
	requests []string
}

// Start serves handler on a loopback port; pkg names the caller in errors.
func Start(pkg string, handler http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: listen: %w", pkg, err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: handler}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() {
	_ = s.srv.Close()
	<-s.done
}

// Served notes a request: its method, path, the model it named and the
// tools it offered.
func (s *Server) Served(r *http.Request, model string, tools []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r.Method+" "+r.URL.Path+" "+model+" ["+strings.Join(tools, " ")+"]")
}

// Requests returns one line per request served: method, path, model and
// the tools offered.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}
