package subscriber_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// tapped is one thing a recorder was told, in order.
type tapped struct {
	what string // "i", "o" or a transport status
	data []byte
}

// A recorder is told, in order: the transport's notes, the subscription
// request just before the answer to it (which the transport sent while
// connecting), every frame received and every message sent. A passive
// client sends no request and is told of none.
func TestTapForRecorders(t *testing.T) {
	for _, passive := range []bool{false, true} {
		t.Run(fmt.Sprintf("passive=%v", passive), func(t *testing.T) {
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "happy"), EndWhenDone: true})
			srv := httptest.NewServer(p)
			t.Cleanup(func() { p.Close(); srv.Close() })
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var got []tapped // written on the client's goroutine, read after its End
			cfg := subscriber.Config{
				Identity: session.Identity{ID: "rec", Name: "recorder", Version: "1"},
				Passive:  passive,
				Tap: func(d subscriber.Direction, data []byte, _ time.Time) {
					got = append(got, tapped{string(rune(d)), append([]byte(nil), data...)})
				},
				TapStatus: func(s transport.Status, _ string, _ time.Time) {
					got = append(got, tapped{what: s.String()})
				},
			}
			c, err := subscriber.Dial(ctx, srv.URL, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for {
				if _, err := c.Next(ctx); err != nil {
					break
				}
			}
			var order []string
			for _, g := range got {
				what := g.what
				if g.data != nil {
					what += " " + protocol.PeekType(g.data)
				}
				order = append(order, what)
			}
			if len(got) < 4 || got[0].what != transport.StatusConnecting.String() {
				t.Fatalf("told %q", order)
			}
			requests := 0
			for i, g := range got {
				if protocol.PeekType(g.data) != protocol.TypeSubscriptionRequest {
					continue
				}
				requests++
				if g.what != "o" || i+1 >= len(got) || protocol.PeekType(got[i+1].data) != protocol.TypeSubscriptionAccepted {
					t.Errorf("the request is not told just before its answer: %q", order)
				}
				var req protocol.SubscriptionRequest
				if err := json.Unmarshal(g.data, &req); err != nil || req.SubscriberID != "rec" {
					t.Errorf("request %s: %v", g.data, err)
				}
			}
			if want := map[bool]int{false: 1, true: 0}[passive]; requests != want {
				t.Errorf("%d requests told, want %d: %q", requests, want, order)
			}
			if !passive && !strings.Contains(strings.Join(order, ","), "connected,o subscription.request,i subscription.accepted") {
				t.Errorf("order %q", order)
			}
		})
	}
}

// A rejection's code is the producer's: the error's words never carry
// its control characters.
func TestRejectedErrorSanitized(t *testing.T) {
	e := &subscriber.RejectedError{Code: "nope\x1b[2J\nforged line"}
	if s := e.Error(); strings.ContainsAny(s, "\x1b\n") {
		t.Errorf("%q", s)
	}
}
