package producer

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// receiveAll subscribes with caps on binding ("sse" or "websocket") and
// returns the subscription.accepted message and every event up to the end
// of the run (the producer has EndWhenDone).
func receiveAll(t *testing.T, srvURL, binding string, caps map[string]any) (accepted map[string]any, events []map[string]any) {
	t.Helper()
	req := map[string]any{"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "honest"}
	if caps != nil {
		req["capabilities"] = caps
	}
	switch binding {
	case "sse":
		code, h, body := post(t, srvURL+protocol.PathSubscriptions, req)
		if code != http.StatusCreated {
			t.Fatalf("subscribe: %d %s", code, body)
		}
		if err := json.Unmarshal(body, &accepted); err != nil {
			t.Fatal(err)
		}
		for _, ev := range open(t, srvURL+h.Get("Location"), "").all(t) {
			events = append(events, ev.decoded(t))
		}
	case "websocket":
		c, _, err := wsDial(t, srvURL, []string{protocol.Subprotocol})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		b, _ := json.Marshal(req)
		if err := c.WriteMessage(websocket.TextMessage, b); err != nil {
			t.Fatal(err)
		}
		accepted = wsRead(t, c)
		for {
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, b, err := c.ReadMessage()
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				break
			}
			if err != nil {
				t.Fatalf("read: %v (after %d events)", err, len(events))
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			events = append(events, m)
		}
	}
	return accepted, events
}

// A subscription that cannot answer (supports_confirmation_reply and
// supports_clarification_reply false, or absent: the spec's default) is
// sent no prompt (§5.3.1.4, §5.3.1.5); the producer applies each prompt's
// default at once and goes on, the stream shows the path the default took,
// and the honored terms say false. Over SSE and WebSocket, with a real
// subscriber request; the prompts would otherwise wait a minute.
func TestNoPromptsToWhoCannotAnswer(t *testing.T) {
	for _, binding := range []string{"sse", "websocket"} {
		for _, tc := range []struct {
			name string
			caps map[string]any
		}{
			{"declared false", map[string]any{"supports_confirmation_reply": false, "supports_clarification_reply": false}},
			{"absent", map[string]any{}},
			{"no capabilities", nil},
		} {
			t.Run(binding+"/"+tc.name, func(t *testing.T) {
				p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm", "clarify"), EndWhenDone: true, PromptTimeout: time.Minute})
				acc, evs := receiveAll(t, srv.URL, binding, tc.caps)
				h, _ := acc["honored_capabilities"].(map[string]any)
				if h["supports_confirmation_reply"] != false || h["supports_clarification_reply"] != false {
					t.Errorf("honored %v, want both reply capabilities false", h)
				}
				var texts []string
				next := map[string]float64{} // each session's numbers run on whole: the prompt was never asked
				for _, e := range evs {
					sess, _ := e["session_id"].(string)
					if n, _ := e["sequence_number"].(float64); n != next[sess] {
						t.Errorf("session %s: sequence_number %v, want %v", sess, n, next[sess])
					}
					next[sess]++
					typ, _ := e["type"].(string)
					if typ == protocol.TypeAwaitingConfirmation || typ == protocol.TypeAwaitingClarify {
						t.Errorf("sent %s to a subscription that cannot answer it", typ)
					}
					s, _ := e["summary_normal"].(string)
					texts = append(texts, s)
				}
				all := strings.Join(texts, "\n")
				for _, want := range []string{"No go-ahead; the payment is off.", "Table booked for 8 in the evening."} {
					if !strings.Contains(all, want) {
						t.Errorf("the stream does not show the default's path %q:\n%s", want, all)
					}
				}
				outs := p.Outcomes()
				if len(outs) != 2 {
					t.Fatalf("outcomes %+v, want two", outs)
				}
				for _, o := range outs {
					if o.Resolution != Defaulted {
						t.Errorf("%s settled as %s, want %s", o.Type, o.Resolution, Defaulted)
					}
				}
				if outs[0].Decision != "reject" || outs[1].Answer != "20:00" {
					t.Errorf("defaults applied: %q, %q; want reject and 20:00", outs[0].Decision, outs[1].Answer)
				}
			})
		}
	}
}

// With two subscriptions, one that can answer and one that cannot, the
// prompt waits for the one that can; only it is sent the prompt, its reply
// settles it, and both streams show what followed.
func TestPromptOnlyToWhoCanAnswer(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true, PromptTimeout: time.Minute})
	id, able := subscribe(t, srv, nil)
	prompt := able.until(t, protocol.TypeAwaitingConfirmation)
	_, mute := subscribe(t, srv, map[string]any{"supports_confirmation_reply": false})
	token, _ := prompt[len(prompt)-1].decoded(t)["reply_token"].(string)
	if code, _, b := post(t, srv.URL+protocol.PathReplies, confirmation(token, "accept", id)); code != http.StatusAccepted {
		t.Fatalf("reply: %d %s", code, b)
	}
	for name, s := range map[string]*stream{"the one that cannot answer": mute, "the one that can": able} {
		var saw []string
		for _, ev := range s.all(t) {
			typ := ev.typ(t)
			if typ == protocol.TypeAwaitingConfirmation && s == mute {
				t.Errorf("%s was sent the prompt", name)
			}
			text, _ := ev.decoded(t)["summary_normal"].(string)
			saw = append(saw, text)
		}
		if !strings.Contains(strings.Join(saw, "\n"), "You accepted; sending the payment.") {
			t.Errorf("%s does not see what followed the reply: %q", name, saw)
		}
	}
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != Accepted {
		t.Errorf("outcomes %+v", outs)
	}
}

// A subscription that renegotiates to say it can no longer answer lets the
// waiting prompt's default apply at once, when no one else can answer it.
func TestRenegotiatedAwayPromptDefaults(t *testing.T) {
	p, srv := serve(t, Options{Scenarios: scenarios(t, "confirm"), EndWhenDone: true, PromptTimeout: time.Minute})
	c, _, err := wsDial(t, srv.URL, []string{protocol.Subprotocol})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.request","aaep_version":"1.0.0","subscriber_id":"t","capabilities":{"supports_confirmation_reply":true}}`))
	sub, _ := wsRead(t, c)["subscription_id"].(string)
	for wsRead(t, c)["type"] != protocol.TypeAwaitingConfirmation {
	}
	_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"subscription.renegotiate","subscription_id":"`+sub+`","capabilities":{"supports_confirmation_reply":false}}`))
	for {
		m := wsRead(t, c)
		if m["summary_normal"] == "No go-ahead; the payment is off." {
			break
		}
	}
	if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != Defaulted || outs[0].Decision != "reject" {
		t.Errorf("outcomes %+v, want the default reject applied at once", outs)
	}
}
