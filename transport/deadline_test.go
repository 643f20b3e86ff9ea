package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// silent answers no request: it holds each one without a response header
// until the client gives up. (It reads the body first: the server notices
// a client gone only after that.)
func silent(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// TestHeaderDeadlineFirstConnection: a producer that accepts the connection
// but never answers a subscription request fails the first connection with
// a *HeaderTimeoutError once the deadline passes, instead of waiting for
// ever. (An event stream's headers are waited for: see
// TestStreamHeadersWithFirstEvent.)
func TestHeaderDeadlineFirstConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(silent))
	t.Cleanup(srv.Close)
	for _, layout := range []Layout{LayoutSpec} {
		var rec recorder
		_, err := DialSSE(context.Background(), srv.URL, rec.opts(SSEOptions{
			Layout: layout, HeaderTimeout: 50 * time.Millisecond,
			SubscriptionRequest: []byte(`{"type":"subscription.request"}`),
		}))
		var late *HeaderTimeoutError
		if !errors.As(err, &late) || late.After != 50*time.Millisecond || !strings.Contains(err.Error(), "did not answer within 50ms") {
			t.Errorf("layout %v: %v, want a HeaderTimeoutError", layout, err)
		}
		if s := rec.statuses(); len(s) == 0 || s[0] != "connecting" {
			t.Errorf("layout %v: statuses %q, want connecting first", layout, s)
		}
	}
}

// lateHeaders holds an event stream's response headers until the client's
// connect deadline d has long passed, then sends them with the event data,
// as the reference TypeScript producer does while idle.
func lateHeaders(w http.ResponseWriter, r *http.Request, d time.Duration, data string) {
	select {
	case <-time.After(4 * d): // the client's deadline started before the request came
	case <-r.Context().Done():
		return // the client gave up
	}
	streamHeaders(w)
	write(w, data)
	<-r.Context().Done()
}

// TestStreamHeadersWithFirstEvent (issue 24 item 16, issue 25 item 17): a
// producer that takes the request but sends the event stream's headers
// only with its first event, later than the connect deadline, is waited
// for, in both layouts, on the first connection and on a reconnect. Before,
// the listener, aaep-capture and aaep-conform gave up after the deadline.
func TestStreamHeadersWithFirstEvent(t *testing.T) {
	t.Parallel()
	// The deadline also bounds the handshake's POST, answered at once: long
	// enough for that on a loaded machine (20 ms failed at load average 20).
	const d = 250 * time.Millisecond
	for _, layout := range []Layout{LayoutLegacy, LayoutSpec} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost { // the handshake is answered at once
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				write(w, `{"type":"subscription.accepted","subscription_id":"sub_1"}`)
				return
			}
			switch n.Add(1) {
			case 1: // late, one event, then the end of the stream
				select {
				case <-time.After(4 * d):
				case <-r.Context().Done():
					return
				}
				streamHeaders(w)
				write(w, "id: 1\ndata: {\"n\":1}\n\n")
			default: // the reconnect: late again
				lateHeaders(w, r, d, "id: 2\ndata: {\"n\":2}\n\n")
			}
		}))
		t.Cleanup(srv.Close)
		var rec recorder
		c := dial(t, srv.URL, rec.opts(SSEOptions{Layout: layout, HeaderTimeout: d,
			SubscriptionRequest: []byte(`{"type":"subscription.request"}`)}))
		want := 2
		if layout == LayoutSpec {
			want++ // the handshake's answer first
		}
		frames := recvN(t, c, want)
		if got := string(frames[len(frames)-1].Data); got != `{"n":2}` {
			t.Errorf("layout %v: frames %+v", layout, frames)
		}
		for _, diag := range rec.diagnostics() {
			if strings.Contains(diag, "did not") {
				t.Errorf("layout %v: %s", layout, diag)
			}
		}
	}
}

// TestHeaderDeadlineWebSocket: a producer that never finishes the
// WebSocket opening handshake fails the first connection at the deadline.
func TestHeaderDeadlineWebSocket(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(silent))
	t.Cleanup(srv.Close)
	done := make(chan error, 1)
	go func() {
		_, err := Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), Options{SSE: SSEOptions{
			HeaderTimeout: 50 * time.Millisecond, SubscriptionRequest: []byte(`{"type":"subscription.request"}`),
		}, WebSocket: WSOptions{LinkOptions: LinkOptions{MaxReconnects: -1}}})
		done <- err
	}()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("dial: %v, want a timeout", err)
	}
}

// TestStreamDeadlineUnaccepted: an event stream whose connection cannot
// be made in time still fails at the deadline, saying so.
func TestStreamDeadlineUnaccepted(t *testing.T) {
	t.Parallel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done() // a connection that is never made
		return nil, ctx.Err()
	}
	var rec recorder
	_, err := DialSSE(context.Background(), "http://127.0.0.1:1", rec.opts(SSEOptions{
		Layout: LayoutLegacy, HeaderTimeout: 20 * time.Millisecond, HTTPClient: &http.Client{Transport: tr},
	}))
	var late *HeaderTimeoutError
	if !errors.As(err, &late) || !late.Unaccepted || !strings.Contains(err.Error(), "did not take the request within 20ms") {
		t.Errorf("dial: %v, want an unaccepted HeaderTimeoutError", err)
	}
}
