package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// closeEvent is a valid event of the producer in the close tests.
func closeEvent(seq int, typ, extra string) string {
	return fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:%s","event_id":"evt_c%d","session_id":"sess_c","sequence_number":%d,"timestamp":%q,"producer":{"agent_id":"closer","agent_name":"Closing Agent"}%s}`,
		typ, seq, seq, time.Now().UTC().Format(time.RFC3339Nano), extra)
}

// producerClose is the producer's subscription.close, with a reason that
// tries to clear the screen and forge a line.
const producerClose = `{"type":"subscription.close","subscription_id":"sub_close1","reason_code":"producer_shutdown",` +
	`"reason_message":"Maintenance \u001b[2Jwindow.\nAgent: accepted your transfer."}`

// A subscription.close from the producer in the middle of the event
// stream is never announced as an event: the listener says, in one line,
// that the producer ended the subscription and why, and stops without
// waiting for the connection to end. Any other handshake or reply message
// where an event is expected gets a diagnostic and no announcement; an
// event with a member its type does not define gets a warning and is
// announced.
func TestProducerClosesSubscription(t *testing.T) {
	t.Parallel()
	frames := []string{
		closeEvent(0, "agent.session.started", `,"summary_normal":"Starting the report."`),
		`{"type":"confirmation.reply","reply_token":"rpl_x","decision":"accept","subscription_id":"sub_close1","timestamp":"2026-06-30T14:22:11Z"}`,
		`{"type":"subscription.renegotiate","subscription_id":"sub_close1","capabilities":{}}`,
		closeEvent(1, "agent.tool.invoked", `,"tool":"fetch","summary_normal":"Fetching the figures.","colour":"red"`),
		closeEvent(2, "agent.awaiting.confirmation", `,"urgency":"critical","action":"Send the report to the board.","consequence":"It cannot be unsent.","reply_token":"rpl_c2","timeout_seconds":600,"default_decision":"reject","risk_level":"medium","irreversible":true`),
		producerClose,
	}
	release := make(chan struct{}) // the connection stays open until the test ends
	t.Cleanup(func() { close(release) })

	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/events" {
			http.NotFound(w, r) // the deployed layout: no handshake
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			fmt.Fprintf(w, "data: %s\n\n", f)
		}
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(sse.Close)

	up := websocket.Upgrader{Subprotocols: []string{"aaep.v1"}}
	ws := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil { // the subscription request
			return
		}
		msgs := append([]string{`{"type":"subscription.accepted","subscription_id":"sub_close1","aaep_version":"1.0.0",` +
			`"producer":{"agent_id":"closer","agent_name":"Closing Agent"},"honored_capabilities":{"supported_conformance_levels":[1,2,3]}}`}, frames...)
		for _, m := range msgs {
			if c.WriteMessage(websocket.TextMessage, []byte(m)) != nil {
				return
			}
		}
		go func() { // whatever the listener sends; it must not send a close back
			for {
				_, b, err := c.ReadMessage()
				if err != nil {
					return
				}
				if strings.Contains(string(b), "subscription.close") || strings.Contains(string(b), "confirmation.reply") {
					t.Errorf("the listener sent %s after the producer closed the subscription", b)
				}
			}
		}()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ws.Close)

	for _, tc := range []struct{ name, url string }{
		{"SSE deployed layout", sse.URL},
		{"WebSocket", "ws" + strings.TrimPrefix(ws.URL, "http") + "/aaep/v1/ws"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startListener(t, "--plain", "--no-sign", tc.url)
			r.wait(t) // ends by itself: the connection is still open
			out, errOut := r.stdout(), r.stderr()
			t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			for _, want := range []string{"Starting the report.", "Fetching the figures."} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks the event %q", want)
				}
			}
			var closing []string
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "ended the subscription") {
					closing = append(closing, line)
				}
			}
			if len(closing) != 1 || !strings.Contains(closing[0], "(reason: producer_shutdown)") ||
				!strings.Contains(closing[0], "It says: Maintenance window. Agent: accepted your transfer.") {
				t.Errorf("want one line saying the producer ended the subscription, with its reason; got %q", closing)
			}
			if strings.Contains(out, "\nAgent: accepted") || strings.ContainsAny(out+errOut, "\x1b") {
				t.Errorf("the producer's reason forged a line or reached the terminal raw")
			}
			for _, typ := range []string{"subscription.close", "confirmation.reply", "subscription.renegotiate"} {
				if strings.Contains(out, typ) {
					t.Errorf("stdout announces a %s message:\n%s", typ, out)
				}
			}
			for _, typ := range []string{"confirmation.reply", "subscription.renegotiate"} {
				if !strings.Contains(errOut, "sent a "+typ+" message where events are expected") {
					t.Errorf("no diagnostic about the %s message", typ)
				}
			}
			// Spec 5.8.2: the producer applies the default decision of a
			// prompt left waiting; the user is told, and nothing is sent.
			if !strings.Contains(out, "The agent went away before prompt 1 was answered") || !strings.Contains(out, "its default is to reject.") ||
				strings.Contains(out, "Sent your answer") {
				t.Errorf("the waiting prompt is not told as ended with its default decision")
			}
			if !strings.Contains(errOut, "/colour: is not a member of this event type; extension data belongs in the extensions object") {
				t.Errorf("no warning about the undefined top-level member (spec 7.2)")
			}
			if strings.Contains(out, "Unknown agent") {
				t.Errorf("a message was announced as an event of an unknown agent")
			}
		})
	}
}

// The producer's answer to the subscription request is never an event,
// whatever it holds: an answer that is neither subscription.accepted nor
// subscription.rejected gets a diagnostic and is not announced.
func TestSubscriptionAnswerIsNoEvent(t *testing.T) {
	t.Parallel()
	fake := closeEvent(0, "agent.session.completed", `,"summary_normal":"Your transfer was approved."`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/aaep/v1/subscriptions":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, fake)
		case "/aaep/v1/events":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", closeEvent(1, "agent.session.started", `,"summary_normal":"Starting the report."`))
			fmt.Fprintf(w, "data: %s\n\n", producerClose)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	r := startListener(t, "--plain", "--no-sign", srv.URL)
	r.wait(t)
	out, errOut := r.stdout(), r.stderr()
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if strings.Contains(out, "Your transfer was approved") {
		t.Errorf("the answer to the subscription request was announced as an event")
	}
	if !strings.Contains(out, "Starting the report.") {
		t.Errorf("the stream's event was not announced")
	}
	if !strings.Contains(errOut, "answered the subscription request with a aaep:agent.session.completed message") {
		t.Errorf("no diagnostic about the answer")
	}
}
