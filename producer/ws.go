package producer

// This file serves the producer over WebSocket (appendix B.2): one text
// frame per message, subprotocol aaep.v1, AAEP close codes.

import (
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
	if !slices.Contains(websocket.Subprotocols(r), protocol.Subprotocol) {
		writeError(w, http.StatusBadRequest, "offer the "+protocol.Subprotocol+" WebSocket subprotocol")
		return
	}
	up := websocket.Upgrader{
		Subprotocols: []string{protocol.Subprotocol},
		// A page may connect from its own origin or one AllowOrigins
		// names: on a WebSocket it could answer prompts unsigned (cors.go).
		CheckOrigin: func(r *http.Request) bool {
			class, _ := p.originOf(r)
			return class == originNone || class == originSame || class == originNamed
		},
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		p.opts.Logf("producer: WebSocket upgrade failed: %v", err)
		return // the upgrader has answered
	}
	defer c.Close()
	c.SetReadLimit(maxBody)
	p.serveFramed(r.Context(), &wsPeer{c: c}, protocol.PathWebSocket, manifestURL(r))
}

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
