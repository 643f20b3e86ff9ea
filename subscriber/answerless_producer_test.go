package subscriber_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// After CannotAnswer, the real producer applies a waiting prompt's default
// because this subscriber said it cannot answer: the prompt is told as
// having taken its default for that reason, never as settled elsewhere
// ("answered on another screen or withdrawn"), which is not what happened.
func TestCannotAnswerDefaultIsWordedTruthfully(t *testing.T) {
	for _, b := range bindings[:3] { // SSE both layouts, WebSocket
		if !b.negotiates {
			continue // no terms to renegotiate
		}
		t.Run(b.name, func(t *testing.T) {
			p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm"), PromptTimeout: time.Hour})
			t.Cleanup(func() { p.Close() })
			endpoint := b.serve(t, p)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c, err := subscriber.Dial(ctx, endpoint, subscriber.Config{
				Identity:  session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:     session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
				Transport: transport.Options{SSE: transport.SSEOptions{Layout: b.layout}},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var prompt *session.Prompt
			for {
				u, err := c.Next(ctx)
				if err != nil {
					t.Fatalf("no prompt: %v", err)
				}
				if u.Kind == subscriber.KindDelivery && u.Delivery.Kind == session.KindEvent &&
					u.Delivery.Prompt != nil && u.Delivery.Prompt.State == session.PromptPending {
					prompt = u.Delivery.Prompt
					break
				}
			}
			if err := c.CannotAnswer(ctx); err != nil {
				t.Fatal(err)
			}
			for {
				u, err := c.Next(ctx)
				if err != nil {
					t.Fatalf("prompt %d never settled: %v", prompt.Number, err)
				}
				if u.Kind != subscriber.KindDelivery || u.Delivery.Prompt == nil || u.Delivery.Prompt.Number != prompt.Number ||
					u.Delivery.Kind == session.KindEvent {
					continue
				}
				note := u.Delivery.Note
				if strings.Contains(note, "elsewhere") || strings.Contains(note, "another screen") ||
					!strings.Contains(note, "took its default decision") || !strings.Contains(note, "nobody here can answer") {
					t.Fatalf("prompt settled by default after CannotAnswer told as (%v) %q", u.Delivery.Kind, note)
				}
				return
			}
		})
	}
}
