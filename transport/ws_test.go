package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// wsServer runs handle for every WebSocket connection; protos are the
// subprotocols it agrees to.
func wsServer(t testing.TB, protos []string, handle func(n int, c *websocket.Conn)) (string, *atomic.Int32) {
	t.Helper()
	var count atomic.Int32
	up := websocket.Upgrader{Subprotocols: protos}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.PathWebSocket {
			http.NotFound(w, r)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		handle(int(count.Add(1)), c)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http"), &count
}

func closeWith(c *websocket.Conn, code int, reason string) {
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	// Wait for the client's answer so the close frame is read before the end.
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
	}
}

func wsOpts(rec *recorder, req string) WSOptions {
	return WSOptions{LinkOptions: LinkOptions{
		SubscriptionRequest: []byte(req), OnStatus: rec.onStatus, OnDiagnostic: rec.onDiag,
		InitialBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, AnswerWait: 100 * time.Millisecond,
	}}
}

const wsReq = `{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t"}`

func TestWebSocketCloseCodes(t *testing.T) {
	for _, tc := range []struct {
		code   int
		eof    bool   // io.EOF, else a *CloseError
		words  string // in the closed status
		reason EndReason
	}{
		{4000, true, "the subscription was closed cleanly", EndNormal},
		{4001, true, "rejected the subscription", EndRejected},
		{4002, false, "authentication failed", EndFailed},
		{4003, false, "authorization was denied", EndFailed},
		{4004, false, "protocol violation", EndFailed},
		{4005, true, "the subscriber ended the subscription", EndClosed},
		{1000, true, "closed normally", EndNormal},
		{1008, false, "breaks its policy", EndFailed},
	} {
		url, count := wsServer(t, []string{protocol.Subprotocol}, func(n int, c *websocket.Conn) {
			_, _, _ = c.ReadMessage() // the request
			_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.accepted","subscription_id":"sub_1"}`))
			closeWith(c, tc.code, "reason \x1b[2Jtext")
		})
		rec := &recorder{}
		c, err := DialWebSocket(context.Background(), url, wsOpts(rec, wsReq))
		if err != nil {
			t.Fatal(err)
		}
		f := recvN(t, c, 1)[0]
		if f.Event != EventHandshake {
			t.Errorf("%d: handshake frame event %q", tc.code, f.Event)
		}
		err = recvErr(t, c)
		var ce *CloseError
		switch {
		case tc.eof && !errors.Is(err, io.EOF):
			t.Errorf("%d: %v, want io.EOF", tc.code, err)
		case !tc.eof && (!errors.As(err, &ce) || ce.Code != tc.code || !strings.Contains(err.Error(), tc.words)):
			t.Errorf("%d: %v, want a CloseError", tc.code, err)
		}
		if r := EndReasonOf(c, err); r != tc.reason {
			t.Errorf("%d: end reason %v, want %v", tc.code, r, tc.reason)
		}
		st := strings.Join(rec.statuses(), "\n")
		if !strings.Contains(st, tc.words) || strings.Contains(st, "\x1b") || !strings.Contains(st, "reason text") {
			t.Errorf("%d: statuses %q", tc.code, st)
		}
		if count.Load() != 1 {
			t.Errorf("%d: %d connections, want no reconnect", tc.code, count.Load())
		}
		c.Close()
	}
}

func TestWebSocketReconnectHandshake(t *testing.T) {
	url, count := wsServer(t, []string{protocol.Subprotocol}, func(n int, c *websocket.Conn) {
		_, req, err := c.ReadMessage()
		if err != nil || string(req) != wsReq {
			t.Errorf("connection %d: request %q %v", n, req, err)
			return
		}
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.accepted","subscription_id":"sub_`+string(rune('0'+n))+`"}`))
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"aaep:agent.state.changed","n":`+string(rune('0'+n))+`}`))
		switch n {
		case 1:
			closeWith(c, 1001, "restarting")
		case 2:
			c.Close() // dropped, no close frame
		default:
			closeWith(c, 4000, "")
		}
	})
	rec := &recorder{}
	c, err := DialWebSocket(context.Background(), url, wsOpts(rec, wsReq))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fs := recvN(t, c, 6)
	for i, f := range fs {
		wantHS := i%2 == 0
		if (f.Event == EventHandshake) != wantHS {
			t.Errorf("frame %d %s: event %q", i, f.Data, f.Event)
		}
	}
	if !strings.Contains(string(fs[4].Data), "sub_3") {
		t.Errorf("third handshake %s", fs[4].Data)
	}
	if err := recvErr(t, c); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
	st := strings.Join(rec.statuses(), "\n")
	if !strings.Contains(st, "reconnecting The producer closed the connection: the producer is going away") {
		t.Errorf("statuses %s", st)
	}
	if count.Load() != 3 {
		t.Errorf("%d connections", count.Load())
	}
}

func TestWebSocketSubprotocol(t *testing.T) {
	url, _ := wsServer(t, nil, func(n int, c *websocket.Conn) {
		_, _, _ = c.ReadMessage()
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.accepted","subscription_id":"sub_1"}`))
		closeWith(c, 4000, "")
	})
	rec := &recorder{}
	_, err := DialWebSocket(context.Background(), url, wsOpts(rec, wsReq))
	if err == nil || !strings.Contains(err.Error(), "did not agree to the aaep.v1 WebSocket subprotocol") {
		t.Fatalf("strict: %v", err)
	}
	o := wsOpts(rec, wsReq)
	o.NoSubprotocol = true
	c, err := DialWebSocket(context.Background(), url, o)
	if err != nil {
		t.Fatalf("lax: %v", err)
	}
	defer c.Close()
	if f := recvN(t, c, 1)[0]; f.Event != EventHandshake {
		t.Errorf("lax: %s", f.Data)
	}
}

func TestWebSocketNoAnswer(t *testing.T) {
	release := make(chan struct{})
	url, _ := wsServer(t, []string{protocol.Subprotocol}, func(n int, c *websocket.Conn) {
		_, _, _ = c.ReadMessage()
		<-release // say nothing for a while, then send an event, unasked
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"aaep:agent.session.started"}`))
		closeWith(c, 4000, "")
	})
	rec := &recorder{}
	c, err := DialWebSocket(context.Background(), url, wsOpts(rec, wsReq))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(strings.Join(rec.diagnostics(), "\n"), "has not answered the subscription request") {
		if time.Now().After(deadline) {
			t.Fatal("no diagnostic about the missing answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if f := recvN(t, c, 1)[0]; f.Event != "" || !strings.Contains(string(f.Data), "session.started") {
		t.Errorf("frame %s event %q", f.Data, f.Event)
	}
	if d := strings.Join(rec.diagnostics(), "\n"); !strings.Contains(d, "without answering the subscription request") {
		t.Errorf("diagnostics %s", d)
	}
}

func TestWebSocketRefusedUpgrade(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"authentication_required","message":"a token is needed"}`))
	}))
	defer srv.Close()
	_, err := DialWebSocket(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), WSOptions{})
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 || he.Code != "authentication_required" {
		t.Errorf("%v", err)
	}
}

func TestWebSocketOversizeAndSendWhileDown(t *testing.T) {
	url, _ := wsServer(t, []string{protocol.Subprotocol}, func(n int, c *websocket.Conn) {
		_, _, _ = c.ReadMessage()
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"big":"`+strings.Repeat("x", 300)+`"}`))
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"small":1}`))
		for { // echo what the subscriber sends
			_, m, err := c.ReadMessage()
			if err != nil {
				return
			}
			_ = c.WriteMessage(websocket.TextMessage, m)
		}
	})
	rec := &recorder{}
	o := wsOpts(rec, wsReq)
	o.MaxFrameBytes = 100
	c, err := DialWebSocket(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	if f := recvN(t, c, 1)[0]; string(f.Data) != `{"small":1}` {
		t.Errorf("frame %s", f.Data)
	}
	if d := strings.Join(rec.diagnostics(), "\n"); !strings.Contains(d, "too large") {
		t.Errorf("diagnostics %s", d)
	}
	if err := c.Send(context.Background(), []byte(`{"type":"confirmation.reply"}`)); err != nil {
		t.Fatal(err)
	}
	if f := recvN(t, c, 1)[0]; string(f.Data) != `{"type":"confirmation.reply"}` {
		t.Errorf("echo %s", f.Data)
	}
	c.Close()
	if err := c.Send(context.Background(), []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
}

func TestWebSocketSilentProducer(t *testing.T) {
	url, count := wsServer(t, []string{protocol.Subprotocol}, func(n int, c *websocket.Conn) {
		// Never read again, so pings go unanswered.
		c.SetPingHandler(func(string) error { return nil })
		_, _, _ = c.ReadMessage()
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.accepted","subscription_id":"sub_1"}`))
		if n == 1 {
			time.Sleep(time.Second)
			return
		}
		closeWith(c, 4000, "")
	})
	rec := &recorder{}
	o := wsOpts(rec, wsReq)
	o.PingInterval = 50 * time.Millisecond
	c, err := DialWebSocket(context.Background(), url, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	recvN(t, c, 2)
	if err := recvErr(t, c); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
	if st := strings.Join(rec.statuses(), "\n"); !strings.Contains(st, "not even an answer to a ping") || count.Load() != 2 {
		t.Errorf("%d connections; statuses %s", count.Load(), st)
	}
}

func TestPlainWarning(t *testing.T) {
	for _, tc := range []struct {
		url  string
		warn bool
	}{
		{"ws://localhost:8080", false},
		{"ws://127.0.0.1:8080", false},
		{"ws://[::1]:8080", false},
		{"http://agent.localhost", false},
		{"wss://agent.example", false},
		{"https://agent.example", false},
		{"ws://agent.example", true},
		{"http://10.0.0.7:8080/x", true},
	} {
		u, _ := url.Parse(tc.url)
		w := plainWarning(u)
		if (w != "") != tc.warn {
			t.Errorf("%s: %q", tc.url, w)
		}
	}
}
