package producer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/wire"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

func wsDial(t *testing.T, url string, protos []string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: protos, HandshakeTimeout: 5 * time.Second}
	return d.Dial("ws"+strings.TrimPrefix(url, "http")+protocol.PathWebSocket, nil)
}

func wsRead(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func TestWebSocketSubprotocolRequired(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy")})
	_, resp, err := wsDial(t, srv.URL, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("%v %v", resp, err)
	}
	c, _, err := wsDial(t, srv.URL, []string{"other", protocol.Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Subprotocol() != protocol.Subprotocol {
		t.Errorf("subprotocol %q", c.Subprotocol())
	}
}

func TestWebSocketRenegotiation(t *testing.T) {
	_, srv := serve(t, Options{Scenarios: scenarios(t, "happy"), Speed: 1})
	c, _, err := wsDial(t, srv.URL, []string{protocol.Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t"}`))
	acc := wsRead(t, c)
	if acc["type"] != "subscription.accepted" {
		t.Fatalf("%v", acc)
	}
	sub := acc["subscription_id"].(string)
	// Garbage and unknown replies are logged, not fatal.
	_ = c.WriteMessage(websocket.TextMessage, []byte(`not json`))
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"confirmation.reply","reply_token":"rpl_0"}`))
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.renegotiate","subscription_id":"`+sub+`","capabilities":{"max_events_per_second":2}}`))
	for {
		m := wsRead(t, c)
		if m["type"] == "subscription.accepted" {
			if h := m["honored_capabilities"].(map[string]any); h["max_events_per_second"] != 2.0 {
				t.Errorf("honored %v", h)
			}
			break
		}
	}
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.renegotiate","subscription_id":"`+sub+`","capabilities":{"max_events_per_second":0}}`))
	for {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, b, err := c.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			if ce.Code != protocol.CloseRejected {
				t.Errorf("close %v", ce)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "subscription.accepted") {
			t.Errorf("a bad renegotiation was accepted: %s", b)
		}
	}
}

func TestServeStdio(t *testing.T) {
	t.Parallel()
	// Played in real time (about 4 s), so the ping sent after subscribing is
	// answered before the run ends and the producer ends the connection.
	p, _ := serve(t, Options{Scenarios: scenarios(t, "happy"), EndWhenDone: true, Speed: 1})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- p.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	next := func() *wire.Message {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("output ended: %v", lines.Err())
		}
		m, err := wire.Parse(lines.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", lines.Bytes(), err)
		}
		return m
	}
	write := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`garbage`)
	if m := next(); m.Error == nil || m.Error.Code != wire.CodeParseError {
		t.Errorf("garbage: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":"x","method":"aaep.unknown"}`)
	if m := next(); m.Error == nil || m.Error.Code != wire.CodeMethodNotFound || string(m.ID) != `"x"` {
		t.Errorf("unknown method: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":1,"method":"aaep.subscribe","params":{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t"}}`)
	m := next()
	if string(m.ID) != "1" || !strings.Contains(string(m.Result), `"subscription.accepted"`) {
		t.Fatalf("subscribe: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":2,"method":"aaep.ping"}`)
	// The pong may come before, among or after the events: read until both
	// the pong and the session's end have come.
	events := 0
	pong, pongSeen, completed := false, false, false
	for !pongSeen || !completed {
		m := next()
		if string(m.ID) == "2" {
			pong, pongSeen = string(m.Result) == "{}", true
			continue
		}
		if m.Method != wire.MethodEvent {
			t.Fatalf("%+v", m)
		}
		events++
		completed = completed || strings.Contains(string(m.Params), "session.completed")
	}
	// Whatever else the producer writes must not block it on the pipe.
	go func() {
		for lines.Scan() {
		}
	}()
	if !pong || events < 3 {
		t.Errorf("pong %v, %d events", pong, events)
	}
	// The run is over: the producer ends the connection by itself.
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return")
	}
	inW.Close()
}
