package transport

import (
	"context"
	"errors"
	"io"
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
// but never answers fails the first connection with a *HeaderTimeoutError
// once the deadline passes, in both layouts, instead of waiting for ever.
func TestHeaderDeadlineFirstConnection(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(silent))
	t.Cleanup(srv.Close)
	for _, layout := range []Layout{LayoutLegacy, LayoutSpec} {
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

// TestHeaderDeadlineReconnect: a reconnect that gets no answer in time is
// said in a diagnostic, and the connection backs off and tries again; the
// producer answering again resumes the stream.
func TestHeaderDeadlineReconnect(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1: // a stream with one event, then the end of it
			streamHeaders(w)
			write(w, "id: 1\ndata: {\"n\":1}\n\n")
		case 2, 3: // two reconnects get no answer
			silent(w, r)
		default:
			streamHeaders(w)
			write(w, "id: 2\ndata: {\"n\":2}\n\n")
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	var rec recorder
	c := dial(t, srv.URL, rec.opts(SSEOptions{Layout: LayoutLegacy, HeaderTimeout: 50 * time.Millisecond}))
	frames := recvN(t, c, 2)
	if string(frames[1].Data) != `{"n":2}` {
		t.Fatalf("frames %+v", frames)
	}
	late := 0
	for _, d := range rec.diagnostics() {
		if strings.Contains(d, "did not answer within 50ms") && strings.HasSuffix(d, "trying again.") {
			late++
		}
	}
	if late != 2 {
		t.Errorf("diagnostics %q, want two saying the producer did not answer", rec.diagnostics())
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
