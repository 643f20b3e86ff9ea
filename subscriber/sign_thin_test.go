package subscriber_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/sigrpl"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// An HTTP endpoint is HTTP however its scheme is spelled: a reply goes
// signed in a header, never wrapped in a sigrpl:signed.reply the HTTP back
// channel does not take. Over every spelling, the producer (which takes
// only signed replies) accepts the answer.
func TestHTTPSchemeAnyCaseSignsInHeader(t *testing.T) {
	for _, scheme := range []string{"http", "HTTP", "Http"} {
		t.Run(scheme, func(t *testing.T) {
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), EndWhenDone: true, RequireSignedReplies: true})
			t.Cleanup(func() { p.Close() })
			endpoint := scheme + strings.TrimPrefix(httpServe(t, p), "http")
			key, err := sigrpl.Generate()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sent := make(chan string, 16) // the tap runs on the owner goroutine
			c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}},
				Signer:    key,
				Tap: func(d subscriber.Direction, data []byte, _ time.Time) {
					var m struct{ Type string }
					if d == subscriber.Sent && json.Unmarshal(data, &m) == nil {
						select {
						case sent <- m.Type:
						default:
						}
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			s := &stream{t: t, c: c, ctx: ctx}
			prompt := s.until(func(u subscriber.Update) bool {
				return u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent
			}).Delivery.Prompt
			if err := c.Confirm(ctx, prompt.Number, protocol.DecisionAccept); err != nil {
				t.Fatal(err)
			}
			r := s.until(func(u subscriber.Update) bool { return u.Kind == subscriber.KindReply })
			if r.Reply.Err != nil || !r.Reply.Signed {
				t.Errorf("reply: signed %v, error %v (%s)", r.Reply.Signed, r.Reply.Err, r.Text)
			}
			for len(sent) > 0 {
				if typ := <-sent; typ == sigrpl.TypeSignedReply {
					t.Errorf("a %s was sent on the HTTP back channel", typ)
				}
			}
			c.Close()
			s.drain()
		})
	}
}
