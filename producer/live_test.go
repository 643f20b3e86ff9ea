package producer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// liveSource is a running agent as a test plays it: the events it sends,
// and what the producer hands it.
type liveSource struct {
	events  chan []byte
	replies chan []byte // buffered: the replies handed to the agent
	tasks   chan []byte
}

func newLiveSource() (*liveSource, *Live) {
	s := &liveSource{events: make(chan []byte), replies: make(chan []byte, 16), tasks: make(chan []byte, 16)}
	return s, &Live{
		Agent: Agent{ID: "live-agent"},
		Next: func(ctx context.Context) ([]byte, error) {
			select {
			case ev, ok := <-s.events:
				if !ok {
					return nil, io.EOF
				}
				return ev, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		Reply: func(msg []byte) error { s.replies <- msg; return nil },
		Messages: map[string]func([]byte) error{
			"ltest:task": func(msg []byte) error {
				if strings.Contains(string(msg), "busy") {
					return errors.New("the agent is busy")
				}
				s.tasks <- msg
				return nil
			},
		},
		Honored: map[string]json.RawMessage{"ltest": json.RawMessage(`{"task":true}`)},
	}
}

// liveEvent is an event of session sess as a live agent sends it.
func liveEvent(typ, sess string, seq int, fields string) []byte {
	return fmt.Appendf(nil, `{"type":%q,"event_id":"evt_%s%d","session_id":%q,"sequence_number":%d,"timestamp":%q,"producer":{"agent_id":"live-agent"},"urgency":"normal","summary_normal":"x"%s}`,
		typ, sess, seq, sess, seq, time.Now().UTC().Format(time.RFC3339Nano), fields)
}

// A live producer checks each reply against its prompt and hands the
// agent the first valid one only, a modified action as a reject; it never
// decides by itself: not when no subscriber can answer, not when the
// session ends (a reply after it is refused). Extension messages reach
// the agent on a subscription only, and its refusal is the answer.
func TestLiveReplies(t *testing.T) {
	t.Parallel()
	src, live := newLiveSource()
	// No keep-alive comes while the test runs: the stream's headers must
	// go out at once, before the agent says anything.
	p, srv := serve(t, Options{Live: live, KeepAlive: time.Hour})
	go func() { _ = p.Run(context.Background()) }()
	code, _, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "mute",
		"capabilities": map[string]any{"supports_confirmation_reply": false},
	})
	if code != http.StatusCreated || strings.Contains(string(body), "ltest") {
		t.Fatalf("a subscription that did not ask was honoured ltest, or refused: %d %s", code, body)
	}
	sub, st := subscribe(t, srv, map[string]any{"supports_confirmation_reply": true, "ltest": map[string]any{}})
	token := "rpl_live1"
	src.events <- liveEvent(protocol.TypeSessionStarted, "sess_a", 0, "")
	src.events <- liveEvent(protocol.TypeAwaitingConfirmation, "sess_a", 1,
		`,"action":"run","consequence":"runs","reply_token":"`+token+`","timeout_seconds":1,"default_decision":"reject"`)
	st.until(t, protocol.TypeAwaitingConfirmation)
	reply := func(m map[string]any) (int, string) {
		code, _, body := post(t, srv.URL+protocol.PathReplies, m)
		return code, string(body)
	}
	modified := confirmation(token, protocol.DecisionAccept, sub)
	modified["modified_action"] = map[string]any{"tool": "rm"}
	for _, c := range []struct {
		name string
		msg  map[string]any
		want int
	}{
		{"no such decision", confirmation(token, "maybe", sub), http.StatusBadRequest},
		{"no such prompt", confirmation("rpl_other", protocol.DecisionAccept, sub), http.StatusNotFound},
		{"a modified accept", modified, http.StatusAccepted},
		{"a second answer", confirmation(token, protocol.DecisionAccept, sub), http.StatusConflict},
		{"a task without a subscription", map[string]any{"type": "ltest:task", "text": "go"}, http.StatusBadRequest},
		{"a task the agent refuses", map[string]any{"type": "ltest:task", "text": "busy", "subscription_id": sub}, http.StatusConflict},
		{"a task", map[string]any{"type": "ltest:task", "text": "go", "subscription_id": sub}, http.StatusAccepted},
	} {
		if code, body := reply(c.msg); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.want)
		}
	}
	// The prompt's timeout has passed, its session ends: nothing decided
	// it but the one reply.
	src.events <- liveEvent(protocol.TypeAwaitingConfirmation, "sess_a", 2,
		`,"action":"run","consequence":"runs","reply_token":"rpl_live2","timeout_seconds":1,"default_decision":"reject"`)
	src.events <- liveEvent(protocol.TypeSessionCompleted, "sess_a", 3, "")
	st.until(t, protocol.TypeSessionCompleted)
	if code, body := reply(confirmation("rpl_live2", protocol.DecisionAccept, sub)); code != http.StatusConflict {
		t.Errorf("a reply after the session ended: %d %s", code, body)
	}
	close(src.events)
	<-p.Done()
	close(src.replies)
	var got []map[string]any
	for r := range src.replies {
		var m map[string]any
		_ = json.Unmarshal(r, &m)
		got = append(got, m)
	}
	if len(got) != 1 || got[0]["decision"] != protocol.DecisionReject || got[0]["modified_action"] != nil || got[0]["reply_token"] != token {
		t.Errorf("the agent was handed %v, want the one reply, as a reject", got)
	}
	if len(src.tasks) != 1 {
		t.Errorf("the agent was handed %d tasks, want 1", len(src.tasks))
	}
}

// A live agent is let begin (Live.Watched) once, when the first stream's
// place in the run is fixed: not for a subscription without a stream,
// not again for a second stream; what it sends from then on reaches the
// first stream.
func TestLiveWatched(t *testing.T) {
	t.Parallel()
	src, live := newLiveSource()
	var watched atomic.Int32
	live.Watched = func() { watched.Add(1) }
	p, srv := serve(t, Options{Live: live, KeepAlive: time.Hour})
	go func() { _ = p.Run(context.Background()) }()
	if code, _, body := post(t, srv.URL+protocol.PathSubscriptions, map[string]any{
		"type": "subscription.request", "aaep_version": "1.0.0", "subscriber_id": "streamless",
		"capabilities": map[string]any{},
	}); code != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", code, body)
	}
	if n := watched.Load(); n != 0 {
		t.Fatalf("watched %d times before any stream", n)
	}
	_, first := subscribe(t, srv, nil)
	if n := watched.Load(); n != 1 {
		t.Fatalf("watched %d times once the first stream began, want 1", n)
	}
	src.events <- liveEvent(protocol.TypeSessionStarted, "sess_a", 0, "")
	first.until(t, protocol.TypeSessionStarted)
	subscribe(t, srv, nil)
	if n := watched.Load(); n != 1 {
		t.Errorf("watched %d times after a second stream, want 1", n)
	}
	close(src.events)
	<-p.Done()
}
