package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// websocket serves the stage over WebSocket (appendix B.2): subprotocol
// aaep.v1, the subscription request first, then events one text frame
// each, and the subscriber's messages on the same connection.
func (s *stage) websocket(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(websocket.Subprotocols(r), protocol.Subprotocol) {
		s.note("note", nil, "a WebSocket connection offered no "+protocol.Subprotocol+" subprotocol and was refused")
		http.Error(w, "offer the "+protocol.Subprotocol+" WebSocket subprotocol", http.StatusBadRequest)
		return
	}
	up := websocket.Upgrader{Subprotocols: []string{protocol.Subprotocol}, CheckOrigin: func(*http.Request) bool { return true }}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	defer c.Close()
	c.SetReadLimit(maxMessage)
	var mu sync.Mutex // one writer at a time
	send := func(msg []byte) error {
		mu.Lock()
		defer mu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		return c.WriteMessage(websocket.TextMessage, msg)
	}
	_, first, err := c.ReadMessage()
	if err != nil {
		return
	}
	status, answer := s.onRequest(protocol.PathWebSocket, first)
	if err := send(s.logged(status, answer)); err != nil || status != http.StatusCreated {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() { // the subscriber's messages, until it goes
		defer cancel()
		for {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			typ, status, answer := s.onMessage(protocol.PathWebSocket, msg)
			switch typ {
			case protocol.TypeSubscriptionRenegotiate:
				send(s.logged(status, answer)) //nolint:errcheck // the reader sees it go
			case protocol.TypeSubscriptionClose:
				mu.Lock()
				_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(protocol.CloseSubscriptionEnded, "subscription closed"), time.Now().Add(time.Second))
				mu.Unlock()
				return
			}
		}
	}()
	s.pump(ctx, 0, func(_ string, frame []byte) error { return send(frame) })
}

// logged marshals an answer and logs it as sent.
func (s *stage) logged(status int, answer any) []byte {
	b, _ := json.Marshal(answer) // the stage's own answers always marshal
	s.note("sent", b, fmt.Sprintf("answer (as HTTP it would be %d)", status))
	return b
}
