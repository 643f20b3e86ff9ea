package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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
	t.Parallel()
	up := websocket.Upgrader{Subprotocols: []string{"aaep.v1"}}
	var conns atomic.Int32
	drop := make(chan struct{}) // closed once the first connection's events are announced
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
		send(phoenixAccepted(n))
		last := 9
		if n == 1 {
			last = 4 // then die without a close frame
		}
		for i := 0; i <= last; i++ {
			send(string(phoenixEvent(i)))
		}
		if n == 1 {
			<-drop
			c.UnderlyingConn().Close()
			return
		}
		send(`{"type":"subscription.close","subscription_id":"sub_phoenix2","reason_code":"producer_shutdown"}`)
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done"), time.Now().Add(time.Second))
	}))
	defer srv.Close()
	var once sync.Once
	release := func() { once.Do(func() { close(drop) }) }
	defer release() // before srv.Close, which waits for the handler
	r := startListener(t, "--plain", "--no-sign", "ws"+strings.TrimPrefix(srv.URL, "http"))
	r.waitOutput(t, "Count 4.")
	release()
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
	if n := strings.Count(out, "Subscribed to Phoenix."); n != 1 || !strings.Contains(out, "Listening to ws:") {
		t.Errorf("said subscribed again %d times, want 1 (the handshake again after the reconnect, the first said as listening)", n)
	}
	if conns.Load() != 2 {
		t.Errorf("%d connections, want 2", conns.Load())
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", out, r.stderr())
	}
}

// phoenixEvent is event i of a ten-event session ("Count i.").
func phoenixEvent(i int) []byte {
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

// phoenixAccepted is the acceptance of connection n.
func phoenixAccepted(n int32) string {
	return `{"type":"subscription.accepted","subscription_id":"sub_phoenix` + fmt.Sprint(n) + `","aaep_version":"1.0.0",` +
		`"producer":{"agent_id":"phoenix","agent_name":"Phoenix"},"honored_capabilities":{}}`
}

// Terms set while listening survive a lost connection: the listener
// subscribes again (with the request it started with, which the producer
// may grant without breaking any rule) and then asks again for the terms
// set since.
func TestRenegotiatedTermsAskedAgainAfterReconnect(t *testing.T) {
	t.Parallel()
	up := websocket.Upgrader{Subprotocols: []string{"aaep.v1"}}
	var conns atomic.Int32
	renegotiations := make(chan string, 4)
	drop := make(chan struct{}) // closed once the first connection's new terms are announced
	accepted := func(rate int) string {
		return fmt.Sprintf(`{"type":"subscription.accepted","subscription_id":"sub_again1","aaep_version":"1.0.0",`+
			`"producer":{"agent_id":"phoenix","agent_name":"Phoenix"},"honored_capabilities":{"max_events_per_second":%d}}`, rate)
	}
	event := func(i int, typ, extra string) string {
		return fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:%s","event_id":"evt_a%d",`+
			`"session_id":"sess_a","sequence_number":%d,"timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"phoenix"},`+
			`"summary_normal":"Again %d.",%s}`, typ, i, i, i, extra)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !websocket.IsWebSocketUpgrade(r) {
			http.NotFound(w, r)
			return
		}
		n := conns.Add(1)
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		send := func(m string) { _ = c.WriteMessage(websocket.TextMessage, []byte(m)) }
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
		send(accepted(50))
		if n == 1 {
			send(event(0, "agent.session.started", `"request_text":"Go."`))
		}
		for {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			if !strings.Contains(string(msg), "subscription.renegotiate") {
				continue
			}
			renegotiations <- string(msg)
			send(accepted(3))
			if n == 1 {
				send(event(1, "agent.progress.updated", `"progress":{"percent":50}`))
				<-drop
				c.UnderlyingConn().Close() // die
				return
			}
			send(event(2, "agent.session.completed", `"result_summary":"Done."`))
			send(`{"type":"subscription.close","subscription_id":"sub_again1","reason_code":"producer_shutdown"}`)
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done"), time.Now().Add(time.Second))
			return
		}
	}))
	defer srv.Close()
	var once sync.Once
	release := func() { once.Do(func() { close(drop) }) }
	defer release() // before srv.Close, which waits for the handler
	r := startListener(t, "--plain", "--no-sign", "--rate", "50", "ws"+strings.TrimPrefix(srv.URL, "http"))
	r.waitOutput(t, "Again 0.")
	fmt.Fprintln(r.stdin, "set rate 3")
	r.waitOutput(t, "The producer accepted the new terms.")
	release()
	r.wait(t)
	out, errOut := r.stdout(), r.stderr()
	close(renegotiations)
	var got []string
	for m := range renegotiations {
		got = append(got, m)
	}
	if len(got) != 2 || !strings.Contains(got[1], `"max_events_per_second":3`) {
		t.Errorf("renegotiations the producer saw: %q", got)
	}
	if strings.Contains(errOut, "breaks the negotiation rules") {
		t.Errorf("the new subscription's terms were called broken:\n%s", errOut)
	}
	for _, want := range []string{"Subscribed again; asking the producer again for the terms you set since.", "Again 2."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "The producer accepted the new terms."); n != 2 {
		t.Errorf("new terms accepted %d times, want 2:\n%s", n, out)
	}
}

// A deployed-layout producer that answers 200 and ends the stream at once,
// every time: the listener says so in one line per empty stream, with the
// growing pause, never "Connected" in between, and gives up with one line.
func TestEmptyStreamsGiveUp(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	r := startListener(t, "--plain", "--no-sign", "--layout", "legacy", srv.URL)
	r.wait(t)
	out := r.stdout()
	t.Log(out)
	if n := strings.Count(out, "without sending anything ("); n != 5 {
		t.Errorf("%d lines about empty streams, want 5:\n%s", n, out)
	}
	if n := strings.Count(out, "Listening to ") + strings.Count(out, "Connected to "); n != 1 {
		t.Errorf("said connected %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "6 times in a row without sending anything; stopped reconnecting.") {
		t.Errorf("no give-up line:\n%s", out)
	}
	if n := requests.Load(); n != 6 {
		t.Errorf("%d requests, want 6", n)
	}
}
