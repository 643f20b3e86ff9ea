package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// DefaultHeaderTimeout is how long a request waits for the producer's
// response headers when SSEOptions.HeaderTimeout is zero (and how long a
// WebSocket opening handshake may take).
const DefaultHeaderTimeout = 10 * time.Second

// HeaderTimeoutError says the producer did not answer before the connect
// deadline: it sent no complete response headers to a request that wants
// them at once (a producer trickling its headers, for example), or, on an
// event stream, did not even take the request (Unaccepted).
type HeaderTimeoutError struct {
	URL   string        // the request's URL, without its password
	After time.Duration // the deadline
	// Unaccepted: the connection was not made, or the request not
	// written, in time.
	Unaccepted bool
}

func (e *HeaderTimeoutError) Error() string {
	if e.Unaccepted {
		return fmt.Sprintf("the producer at %s did not take the request within %s (no connection, or it was not read)", e.URL, e.After)
	}
	return fmt.Sprintf("the producer at %s did not answer within %s (no complete response headers came)", e.URL, e.After)
}

// Timeout reports true: the error is a timeout (net.Error's sense).
func (e *HeaderTimeoutError) Timeout() bool { return true }

// headerTimeout is o's deadline for response headers; 0 means none.
func headerTimeout(d time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultHeaderTimeout
	}
	return d
}

// doWithin sends req with client and waits at most d (none when 0) for its
// response headers, then cancels the request with cancel, which must end
// req's context. The body of the response it returns is not bounded.
func doWithin(client *http.Client, req *http.Request, d time.Duration, cancel context.CancelFunc) (*http.Response, error) {
	if d <= 0 {
		return client.Do(req)
	}
	var late atomic.Bool
	t := time.AfterFunc(d, func() { late.Store(true); cancel() })
	resp, err := client.Do(req)
	if !t.Stop() && late.Load() {
		if err == nil {
			resp.Body.Close()
		}
		return nil, &HeaderTimeoutError{URL: req.URL.Redacted(), After: d}
	}
	return resp, err
}

// doAccepted sends req with client and waits at most d (none when 0) for
// the connection to be made and the request written, then cancels the
// request with cancel, which must end req's context. Once the request is
// written it waits for the response headers without a bound: a producer
// may send an event stream's headers only with its first event (the
// reference TypeScript producer does while idle).
func doAccepted(client *http.Client, req *http.Request, d time.Duration, cancel context.CancelFunc) (*http.Response, error) {
	if d <= 0 {
		return client.Do(req)
	}
	var late, taken atomic.Bool
	t := time.AfterFunc(d, func() {
		if !taken.Load() {
			late.Store(true)
			cancel()
		}
	})
	defer t.Stop()
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		taken.Store(true)
		t.Stop()
	}}
	resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if late.Load() {
		if err == nil {
			resp.Body.Close()
		}
		return nil, &HeaderTimeoutError{URL: req.URL.Redacted(), After: d, Unaccepted: true}
	}
	return resp, err
}
