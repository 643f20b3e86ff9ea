package subscriber_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/subscriber"
)

// TestDialContextBoundsTheSubscription: the context given to Dial bounds
// the whole subscription, as its doc says. Cancelled while Dial waits for
// a producer that says nothing, it ends the attempt with ctx's error;
// cancelled after Dial returned, it closes the subscription: the client
// ends with "Stopped.".
func TestDialContextBoundsTheSubscription(t *testing.T) {
	t.Parallel()
	t.Run("while dialling", func(t *testing.T) {
		t.Parallel()
		arrived, release := make(chan struct{}, 1), make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case arrived <- struct{}{}:
			default:
			}
			select { // says nothing
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Dial: %v, want an error wrapping context.Canceled", err)
		}
		end := lastUpdate(t, c)
		if end.Kind != subscriber.KindEnd || !errors.Is(end.Err, context.Canceled) {
			t.Errorf("last update: %+v, want the End with ctx's error", end)
		}
	})
	t.Run("after Dial", func(t *testing.T) {
		t.Parallel()
		p := producer.New(producer.Options{Scenarios: loadScenarios(t, "confirm")})
		srv := httptest.NewServer(p)
		defer srv.Close()
		defer p.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := subscriber.Dial(ctx, srv.URL, subscriber.Config{
			Identity: subscriber.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
			Terms:    subscriber.RequestedTerms{CanConfirm: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		for { // until the agent waits on the user: the subscription is live
			u, err := c.Next(context.Background())
			if err != nil {
				t.Fatalf("ended before the prompt: %v", err)
			}
			if u.Kind == subscriber.KindDelivery && u.Delivery.Prompt != nil && u.Delivery.Prompt.State == subscriber.PromptPending {
				break
			}
		}
		cancel()
		if end := lastUpdate(t, c); end.Kind != subscriber.KindEnd || end.Text != "Stopped." {
			t.Errorf("last update: %q (kind %v), want the End \"Stopped.\"", end.Text, end.Kind)
		}
	})
}

// lastUpdate takes c's updates until io.EOF and returns the last one.
func lastUpdate(t *testing.T, c *subscriber.Client) subscriber.Update {
	t.Helper()
	var last subscriber.Update
	for {
		u, err := c.Next(context.Background())
		if err != nil {
			return last
		}
		last = u
	}
}
