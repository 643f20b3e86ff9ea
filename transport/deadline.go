package transport

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// DefaultHeaderTimeout is how long a request waits for the producer's
// response headers when SSEOptions.HeaderTimeout is zero (and how long a
// WebSocket opening handshake may take).
const DefaultHeaderTimeout = 10 * time.Second

// HeaderTimeoutError says the producer sent no complete response headers
// before the connect deadline: it accepted the connection, then kept the
// client waiting (a producer trickling its headers, for example).
type HeaderTimeoutError struct {
	URL   string        // the request's URL, without its password
	After time.Duration // the deadline
}

func (e *HeaderTimeoutError) Error() string {
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
