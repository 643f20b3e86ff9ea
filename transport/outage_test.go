package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/aaep-term/aaep-term/protocol"
)

// When the producer cannot be reached again after a connection was lost,
// the transport says so once (not at every attempt, and never not at all),
// on the SSE and the framed bindings alike.
func TestOutageSaidOnce(t *testing.T) {
	const said = "Could not reach the producer again"
	for _, tc := range []struct {
		name   string
		frames int // before the connection is lost
		dial   func(t *testing.T, rec *recorder) Conn
	}{
		{"SSE", 1, func(t *testing.T, rec *recorder) Conn {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					streamHeaders(w)
					write(w, "data: {}\n\n")
					return
				}
				http.Error(w, `{"error":"down"}`, http.StatusServiceUnavailable)
			}))
			t.Cleanup(srv.Close)
			return dial(t, srv.URL, rec.opts(SSEOptions{Layout: LayoutLegacy, MaxReconnects: 4,
				InitialBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}))
		}},
		{"WebSocket", 2, func(t *testing.T, rec *recorder) Conn {
			var calls atomic.Int32
			up := websocket.Upgrader{Subprotocols: []string{protocol.Subprotocol}}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) > 1 {
					http.Error(w, "down", http.StatusServiceUnavailable)
					return
				}
				c, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer c.Close()
				_, _, _ = c.ReadMessage()
				_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.accepted","subscription_id":"sub_1"}`))
				_ = c.WriteMessage(websocket.TextMessage, []byte(`{}`))
			}))
			t.Cleanup(srv.Close)
			o := wsOpts(rec, wsReq)
			o.MaxReconnects = 4
			c, err := DialWebSocket(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http")+protocol.PathWebSocket, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			c := tc.dial(t, rec)
			recvN(t, c, tc.frames)
			if err := recvErr(t, c); err == nil {
				t.Fatal("no end")
			}
			n := 0
			for _, d := range rec.diagnostics() {
				if strings.Contains(d, said) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("the outage was said %d times, want once: %q; statuses %q", n, rec.diagnostics(), rec.statuses())
			}
		})
	}
}
