package subscriber_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// On HTTP the producer answers a renegotiation in the body of the POST,
// beside the event stream. The answer is handled as it comes, in turn with
// the request: once Renegotiate returns, the new terms stand, and the line
// saying the producer accepted them comes before what the producer did
// under them, here the default it applied to the prompt nobody can answer
// any more (spec §5.3.1.4, §5.7.2). Before, the answer was queued behind
// the events already read, however late the POST's answer was read.
func TestRenegotiationAnswerInTurn(t *testing.T) {
	for range 5 {
		p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), EndWhenDone: true})
		endpoint := httpServe(t, p)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
			Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
			Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
			Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}},
		})
		if err != nil {
			t.Fatal(err)
		}
		s := &stream{t: t, c: c, ctx: ctx}
		prompt := s.until(func(u subscriber.Update) bool {
			return u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Kind == session.KindEvent
		}).Delivery.Prompt
		no := false
		if err := c.Renegotiate(ctx, protocol.Capabilities{SupportsConfirmationReply: &no, SupportsClarificationReply: &no}); err != nil {
			t.Fatal(err)
		}
		if terms := c.Terms(); terms.Pending || terms.Requested.SupportsConfirmationReply == nil || *terms.Requested.SupportsConfirmationReply {
			t.Fatalf("right after Renegotiate: pending %v, requested supports_confirmation_reply %v; want the answer taken",
				terms.Pending, terms.Requested.SupportsConfirmationReply)
		}
		accepted := false
		for {
			u := s.next()
			if u.Kind == subscriber.KindStatus && strings.HasPrefix(u.Text, "The producer accepted the new terms") {
				accepted = true
			}
			if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Prompt.Number == prompt.Number &&
				u.Delivery.Prompt.State != session.PromptPending {
				if !accepted {
					t.Fatalf("the prompt's default came before the producer's acceptance of the terms that made it:\n%s", strings.Join(s.log, "\n"))
				}
				break
			}
		}
		c.Close()
		p.Close()
		cancel()
	}
}
