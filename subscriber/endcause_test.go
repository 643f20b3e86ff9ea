package subscriber_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
)

// endConn gives the frames the test pushes, ends with the error pushed on
// end, and fails a subscription.close when closeErr is set.
type endConn struct {
	frames   chan []byte
	end      chan error
	closeErr error
	closed   chan struct{}
	once     sync.Once
}

func (c *endConn) Recv(ctx context.Context) (transport.Frame, error) {
	select {
	case b := <-c.frames:
		return transport.Frame{Data: b, At: time.Now()}, nil
	case err := <-c.end:
		return transport.Frame{}, err
	case <-c.closed:
		return transport.Frame{}, transport.ErrClosed
	case <-ctx.Done():
		return transport.Frame{}, ctx.Err()
	}
}

func (c *endConn) Send(_ context.Context, msg []byte) error {
	if c.closeErr != nil && strings.Contains(string(msg), `"subscription.close"`) {
		return c.closeErr
	}
	return nil
}

func (c *endConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// A prompt still pending when the subscription ends says why it stopped
// waiting: the user quit and the producer was told, the user quit and
// telling failed, or the producer went away. Only a deadline that passed
// is told as its time running out (every cause read CauseTimeout before).
func TestPromptEndSaysWhy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		subscribed bool
		closeErr   error
		end        error // nil: the user quits
		want       session.DeliveryKind
		cause      session.Cause
	}{
		{"quit, producer told", true, nil, nil, session.KindPromptExpired, session.CauseQuit},
		{"quit, close not sent", true, errors.New("broken pipe"), nil, session.KindPromptExpired, session.CauseQuitUntold},
		{"producer ended its stream", true, nil, io.EOF, session.KindPromptExpired, session.CauseGone},
		{"connection lost", true, nil, errors.New("connection reset"), session.KindPromptExpired, session.CauseGone},
		{"no subscription, quit", false, nil, nil, session.KindPromptLeft, session.CauseQuit},
		{"no subscription, stream ended", false, nil, io.EOF, session.KindPromptLeft, session.CauseGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn := &endConn{frames: make(chan []byte, 4), end: make(chan error, 1), closeErr: tc.closeErr, closed: make(chan struct{})}
			if tc.subscribed {
				conn.frames <- []byte(`{"type":"subscription.accepted","subscription_id":"sub_1","aaep_version":"1.0.0",` +
					`"producer":{"agent_id":"a"},"honored_capabilities":{"supports_confirmation_reply":true,"supports_clarification_reply":true}}`)
			}
			conn.frames <- []byte(fmt.Sprintf(`{"@context":"https://aaep-protocol.org/context/v1","type":"aaep:agent.awaiting.confirmation",`+
				`"event_id":"evt_1","session_id":"sess_1","sequence_number":0,"timestamp":%q,"producer":{"agent_id":"a"},`+
				`"urgency":"critical","action":"Send the report.","reply_token":"rpl_1","timeout_seconds":600,"default_decision":"reject"}`,
				time.Now().UTC().Format(time.RFC3339Nano)))
			c := subscriber.New(ctx, conn, "", subscriber.Config{
				Identity: session.Identity{ID: "test", Name: "subscriber-test", Version: "1"},
				Terms:    session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
			})
			defer c.Close()
			ended := false
			for {
				u, err := c.Next(ctx)
				if err != nil {
					t.Fatalf("no end of the prompt told: %v", err)
				}
				d := u.Delivery
				switch {
				case u.Kind == subscriber.KindDelivery && d.Kind == session.KindEvent && d.Prompt != nil && !ended:
					ended = true
					if tc.end != nil {
						conn.end <- tc.end
					} else {
						go c.Close()
					}
				case u.Kind == subscriber.KindDelivery && d.Prompt != nil && d.Kind != session.KindEvent:
					if d.Kind != tc.want || d.Cause != tc.cause {
						t.Fatalf("prompt told as %v because %v; want %v because %v", d.Kind, d.Cause, tc.want, tc.cause)
					}
					return
				case u.Kind == subscriber.KindEnd:
					t.Fatalf("ended (%s) without telling what became of the prompt", u.Text)
				}
			}
		})
	}
}
