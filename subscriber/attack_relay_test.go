package subscriber_test

// attack_relay_test.go: a signed accept cannot be spent on another
// producer. A hostile producer that learned a payment prompt's reply_token
// asks the user something harmless under that token and forwards the
// user's signed accept to the payment producer, which pins the user's key
// and takes only signed replies. The payment producer refuses it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// relay is what the hostile producer saw and what the payment producer
// answered when it forwarded the user's reply.
type relay struct {
	body   []byte
	sig    string
	status int
	answer string
}

// relayer is a hostile producer that asks one harmless confirmation under a
// stolen reply_token and forwards the reply it gets, byte for byte with
// its signature header, to victim's deployed reply path. With handshake it
// serves the appendix B layout, honours the signed-replies extension and
// claims identity (agent_id, subscription_id); without, the deployed one.
type relayer struct {
	token, victim      string
	handshake          bool
	agentID, subID     string
	forwarded          chan relay
	streamed, finished chan struct{}
}

func (h *relayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == protocol.PathSubscriptions && h.handshake:
		w.Header().Set("Location", protocol.PathEvents+"?subscription_id="+h.subID)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"type": protocol.TypeSubscriptionAccepted, "subscription_id": h.subID, "aaep_version": protocol.Version,
			"producer": map[string]any{"agent_id": h.agentID},
			"honored_capabilities": map[string]any{"supports_confirmation_reply": true,
				"sigrpl": map[string]any{"kid": "whatever", "required": true}},
		})
	case r.Method == http.MethodGet && (r.URL.Path == protocol.PathEvents && h.handshake || r.URL.Path == protocol.PathLegacyEvents && !h.handshake):
		h.stream(w, r)
	case r.Method == http.MethodPost && (r.URL.Path == protocol.PathReplies || r.URL.Path == protocol.PathLegacyReplies):
		body, _ := io.ReadAll(r.Body)
		got := relay{body: body, sig: r.Header.Get(sigrpl.Header)}
		req, _ := http.NewRequest(http.MethodPost, h.victim+protocol.PathLegacyReplies, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if got.sig != "" {
			req.Header.Set(sigrpl.Header, got.sig)
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got.status, got.answer = resp.StatusCode, string(answer)
		} else {
			got.answer = err.Error()
		}
		h.forwarded <- got
		w.WriteHeader(http.StatusAccepted) // the user is told it went well
	default:
		http.NotFound(w, r)
	}
}

// stream sends the harmless prompt under the stolen token, then holds the
// stream open until the test ends.
func (h *relayer) stream(w http.ResponseWriter, r *http.Request) {
	ev, _ := json.Marshal(map[string]any{
		"@context": protocol.ContextURL, "aaep_version": protocol.Version,
		"type": protocol.TypeAwaitingConfirmation, "event_id": "evt_harmless", "session_id": "sess_weather", "sequence_number": 0,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "producer": map[string]any{"agent_id": h.agentID},
		"urgency": "critical", "summary_normal": "May I show you the weather?",
		"action": "Show the weather for Lisbon.", "consequence": "Nothing changes anywhere.",
		"risk_level": "low", "irreversible": false, "timeout_seconds": 120, "default_decision": "reject",
		"allowed_replies": []string{"accept", "reject"}, "reply_token": h.token,
	})
	w.Header().Set("Content-Type", "text/event-stream")
	if h.handshake {
		fmt.Fprintf(w, "event: aaep.event\nid: evt_harmless\n")
	}
	fmt.Fprintf(w, "data: %s\n\n", ev)
	w.(http.Flusher).Flush()
	select {
	case <-r.Context().Done():
	case <-h.finished:
	}
}

func TestSignedAcceptRelayedToAnotherProducer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		handshake bool
		// impostor: the hostile producer claims the payment producer's
		// agent_id and the user's subscription on it (leaked, say, from a
		// log), so only the prompt it answers tells the replies apart.
		impostor bool
	}{
		{name: "deployed layout, no handshake"},
		{name: "handshake, its own identity", handshake: true},
		{name: "handshake, the payment producer's identity and subscription", handshake: true, impostor: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			key, err := sigrpl.Generate()
			if err != nil {
				t.Fatal(err)
			}
			bank := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), EndWhenDone: true,
				PinnedKeys: []string{key.KID()}, RequireSignedReplies: true})
			t.Cleanup(func() { bank.Close() })
			bankURL := httpServe(t, bank)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			// The user subscribes to the bank and is asked to pay.
			accepted := make(chan protocol.SubscriptionAccepted, 4)
			cfg := func(layout transport.Layout, tap func(subscriber.Direction, []byte, time.Time)) subscriber.Config {
				return subscriber.Config{
					Identity:  session.Identity{ID: "user", Name: "relay-test", Version: "1"},
					Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
					Transport: transport.Options{SSE: transport.SSEOptions{Layout: layout}},
					Signer:    key, Tap: tap,
				}
			}
			toBank, err := subscriber.Dial(ctx, bankURL, cfg(transport.LayoutSpec, func(d subscriber.Direction, b []byte, _ time.Time) {
				var m protocol.SubscriptionAccepted
				if d == subscriber.Received && protocol.PeekType(b) == protocol.TypeSubscriptionAccepted && json.Unmarshal(b, &m) == nil {
					accepted <- m
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			defer toBank.Close()
			bs := &stream{t: t, c: toBank, ctx: ctx}
			payment := bs.until(isOffered).Delivery.Prompt
			acc := <-accepted

			// The hostile producer asks something harmless under the
			// payment's token and relays the answer.
			h := &relayer{token: payment.Event.ReplyToken, victim: bankURL, handshake: c.handshake,
				agentID: "weather", subID: "sub_weather0000", forwarded: make(chan relay, 1),
				finished: make(chan struct{})}
			if c.impostor {
				h.agentID, h.subID = acc.Producer.AgentID, acc.SubscriptionID
			}
			evil := httptest.NewServer(h)
			t.Cleanup(evil.Close)
			defer close(h.finished)
			layout := transport.LayoutLegacy
			if c.handshake {
				layout = transport.LayoutSpec
			}
			toEvil, err := subscriber.Dial(ctx, evil.URL, cfg(layout, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer toEvil.Close()
			es := &stream{t: t, c: toEvil, ctx: ctx}
			harmless := es.until(isOffered).Delivery.Prompt
			if err := toEvil.Confirm(ctx, harmless.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			var got relay
			select {
			case got = <-h.forwarded:
			case <-ctx.Done():
				t.Fatal("the hostile producer never got the answer")
			}
			if got.status/100 == 2 {
				t.Errorf("the bank took the relayed answer (%d %s); signature %q, body %s", got.status, got.answer, got.sig, got.body)
			}
			for _, o := range bank.Outcomes() {
				if o.Resolution == producer.Accepted {
					t.Errorf("the payment was accepted by a reply the user gave to another producer: %+v", o)
				}
			}
		})
	}
}

// isOffered finds a prompt offered to the user for an answer.
func isOffered(u subscriber.Update) bool {
	return u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent
}
