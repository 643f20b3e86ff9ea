package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// websocket serves the stage over WebSocket (appendix B.2) on the
// producer's binding (producer.AcceptWebSocket): subprotocol aaep.v1, the
// subscription request first, then events one text frame each, and the
// subscriber's messages on the same connection.
func (s *stage) websocket(w http.ResponseWriter, r *http.Request) {
	c, err := producer.AcceptWebSocket(w, r, maxMessage)
	if errors.Is(err, producer.ErrNoSubprotocol) {
		s.note("note", nil, "a WebSocket connection offered no "+protocol.Subprotocol+" subprotocol and was refused")
	}
	if err != nil {
		return // answered
	}
	defer c.Close()
	first, err := c.Read()
	if err != nil {
		return
	}
	status, answer := s.onRequest(protocol.PathWebSocket, first)
	if err := c.Write(s.logged(status, answer)); err != nil || status != http.StatusCreated {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() { // the subscriber's messages, until it goes
		defer cancel()
		for {
			msg, err := c.Read()
			if err != nil {
				return
			}
			typ, status, answer := s.onMessage(protocol.PathWebSocket, msg)
			switch typ {
			case protocol.TypeSubscriptionRenegotiate:
				c.Write(s.logged(status, answer)) //nolint:errcheck // the reader sees it go
			case protocol.TypeSubscriptionClose:
				c.End(protocol.CloseSubscriptionEnded, "subscription closed")
				return
			}
		}
	}()
	s.pump(ctx, 0, func(_ string, frame []byte) error { return c.Write(frame) })
}

// logged marshals an answer and logs it as sent.
func (s *stage) logged(status int, answer any) []byte {
	b, _ := json.Marshal(answer) // the stage's own answers always marshal
	s.note("sent", b, fmt.Sprintf("answer (as HTTP it would be %d)", status))
	return b
}
