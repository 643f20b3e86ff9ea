package producer

// This file serves the producer over WebSocket (appendix B.2): one text
// frame per message, subprotocol aaep.v1, AAEP close codes.

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/gorilla/websocket"
)

// writeWait bounds one write to a subscriber.
const writeWait = 10 * time.Second

// closeWait is how long a closing connection waits for the subscriber's
// answer before it is cut.
const closeWait = time.Second

func (p *Producer) handleWebSocket(w http.ResponseWriter, r *http.Request) {
	// A page may connect from its own origin or one AllowOrigins names: on
	// a WebSocket it could answer prompts unsigned (cors.go).
	origin := func(r *http.Request) bool {
		class, _ := p.originOf(r)
		return class == originNone || class == originSame || class == originNamed
	}
	ws, err := acceptWebSocket(w, r, origin, maxBody)
	if err != nil {
		p.opts.Logf("%v", err)
		return // answered
	}
	defer ws.c.Close()
	p.serveFramed(r.Context(), ws, protocol.PathWebSocket, manifestURL(r))
}

// ErrNoSubprotocol is AcceptWebSocket's error for an opening handshake that
// offers no aaep.v1 subprotocol.
var ErrNoSubprotocol = errors.New("producer: the WebSocket opening handshake offered no " + protocol.Subprotocol + " subprotocol")

// acceptWebSocket answers a WebSocket opening handshake on the aaep.v1
// subprotocol from an origin ok accepts; a refusal is answered and
// returned. limit bounds one message.
func acceptWebSocket(w http.ResponseWriter, r *http.Request, ok func(*http.Request) bool, limit int64) (*wsPeer, error) {
	if !slices.Contains(websocket.Subprotocols(r), protocol.Subprotocol) {
		writeError(w, http.StatusBadRequest, "offer the "+protocol.Subprotocol+" WebSocket subprotocol")
		return nil, ErrNoSubprotocol
	}
	up := websocket.Upgrader{Subprotocols: []string{protocol.Subprotocol}, CheckOrigin: ok}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return nil, fmt.Errorf("producer: WebSocket upgrade failed: %w", err) // the upgrader has answered
	}
	c.SetReadLimit(limit)
	return &wsPeer{c: c}, nil
}

// WebSocket is one subscriber's connection on the WebSocket binding
// (appendix B.2) as the producer serves it: the aaep.v1 subprotocol, one
// text frame per message, AAEP close codes. It is for a peer that plays
// messages of its own over the producer's binding, such as package
// conform's stage for testing subscribers.
type WebSocket struct{ p *wsPeer }

// AcceptWebSocket answers a WebSocket opening handshake on the aaep.v1
// subprotocol, from any origin; one that offers no aaep.v1 is refused (400)
// with ErrNoSubprotocol. limit bounds one message from the subscriber.
func AcceptWebSocket(w http.ResponseWriter, r *http.Request, limit int64) (*WebSocket, error) {
	p, err := acceptWebSocket(w, r, func(*http.Request) bool { return true }, limit)
	if err != nil {
		return nil, err
	}
	return &WebSocket{p: p}, nil
}

// Read returns the subscriber's next message.
func (ws *WebSocket) Read() ([]byte, error) {
	in, err := ws.p.next()
	return in.data, err
}

// Write sends one message; it may be called from several goroutines.
func (ws *WebSocket) Write(msg []byte) error { return ws.p.send(msg) }

// End sends a close frame with an AAEP close code and reason; the
// connection is cut a second later if the subscriber has not closed it.
func (ws *WebSocket) End(code int, reason string) { ws.p.end(code, reason) }

// Close cuts the connection.
func (ws *WebSocket) Close() error { return ws.p.c.Close() }

// wsPeer is a subscriber on a WebSocket.
type wsPeer struct {
	c    *websocket.Conn
	mu   sync.Mutex // one writer at a time
	once sync.Once
}

func (w *wsPeer) next() (inbound, error) {
	_, data, err := w.c.ReadMessage()
	return inbound{data: data}, err
}

func (w *wsPeer) send(msg []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(writeWait))
	return w.c.WriteMessage(websocket.TextMessage, msg)
}

func (w *wsPeer) answer(_ inbound, msg []byte, _ bool) error { return w.send(msg) }

// end sends a close frame; the subscriber's answer ends next, or the
// connection is cut after closeWait.
func (w *wsPeer) end(code int, reason string) {
	w.once.Do(func() {
		_ = w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(closeWait))
		time.AfterFunc(closeWait, func() { w.c.Close() })
	})
}
