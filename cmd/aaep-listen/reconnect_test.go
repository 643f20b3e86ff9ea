package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A WebSocket producer that dies in the middle of its stream (the TCP
// connection just drops) and comes back sending everything again from the
// start: the listener reconnects, runs the handshake again, and announces
// each event once.
func TestProducerDiesAndComesBack(t *testing.T) {
	up := websocket.Upgrader{Subprotocols: []string{"aaep.v1"}}
	var conns atomic.Int32
	event := func(i int) []byte {
		typ, extra := "agent.progress.updated", `"progress":{"percent":10}`
		switch i {
		case 0:
			typ, extra = "agent.session.started", `"request_text":"Count."`
		case 9:
			typ, extra = "agent.session.completed", `"result_summary":"Counted."`
		}
		return fmt.Appendf(nil, `{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:%s","event_id":"evt_c%d",`+
			`"session_id":"sess_c","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"phoenix","agent_name":"Phoenix"},`+
			`"summary_normal":"Count %d.",%s}`, typ, i, i, i, extra)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) { // the manifest, say
			http.NotFound(w, r)
			return
		}
		n := conns.Add(1)
		if n > 2 {
			http.Error(w, "gone", http.StatusGone)
			return
		}
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
		send := func(m string) { _ = c.WriteMessage(websocket.TextMessage, []byte(m)) }
		send(`{"type":"subscription.accepted","subscription_id":"sub_phoenix` + fmt.Sprint(n) + `","aaep_version":"1.0.0",` +
			`"producer":{"agent_id":"phoenix","agent_name":"Phoenix"},"honored_capabilities":{}}`)
		last := 9
		if n == 1 {
			last = 4 // then die without a close frame
		}
		for i := 0; i <= last; i++ {
			send(string(event(i)))
		}
		if n == 1 {
			time.Sleep(100 * time.Millisecond)
			c.UnderlyingConn().Close()
			return
		}
		send(`{"type":"subscription.close","subscription_id":"sub_phoenix2","reason_code":"producer_shutdown"}`)
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done"), time.Now().Add(time.Second))
	}))
	defer srv.Close()
	r := startListener(t, "--plain", "--no-sign", "ws"+strings.TrimPrefix(srv.URL, "http"))
	r.wait(t)
	out := r.stdout()
	for i := range 10 {
		if n := strings.Count(out, fmt.Sprintf("Count %d.", i)); n != 1 {
			t.Errorf("event %d announced %d times", i, n)
		}
	}
	for _, want := range []string{"Connection lost; reconnecting.", "Subscribed to Phoenix."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if n := strings.Count(out, "Subscribed to Phoenix."); n != 2 {
		t.Errorf("subscribed %d times, want 2 (the handshake again after the reconnect)", n)
	}
	if conns.Load() != 2 {
		t.Errorf("%d connections, want 2", conns.Load())
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out, r.stderr())
	}
}
