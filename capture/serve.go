// serve.go: serving a capture as a producer over HTTP (Server-Sent Events) and WebSocket.

package capture

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/gorilla/websocket"
)

// ServeOptions configures a Server. The zero value sends everything at once.
type ServeOptions struct {
	// Speed divides the recorded pauses: 1 is as recorded, 2 twice as fast;
	// 0 sends without pauses.
	Speed float64
	// IdleLimit caps every pause; zero means no cap.
	IdleLimit time.Duration
	// Loop plays the capture again and again. From the second round on,
	// event IDs, session IDs and reply tokens get a suffix naming the round,
	// so every round is a set of new sessions with new events.
	Loop bool
	// NoWait starts playing at Start, whether a subscriber is there or not,
	// as a live producer does: a subscriber gets what is sent from the
	// moment it joins. Without it, each stream plays the capture from its
	// start for itself.
	NoWait bool
	// KeepTimestamps sends the recorded timestamps. By default each event's
	// timestamp is the time it is sent, so subscribers treat the session as
	// live (prompts are not already expired).
	KeepTimestamps bool
	// Linger keeps each stream open this long after its last message, so
	// that replies to the last prompts still find it open.
	Linger time.Duration
	// OnReply, if not nil, is told every message a subscriber sends back
	// (replies, renegotiation, close), with the path it came to. It may be
	// called from several goroutines at once.
	OnReply func(path string, body []byte)
	// OnDone, if not nil, is called each time a stream (with NoWait: the
	// playing) has sent the whole capture; never with Loop.
	OnDone func()
	// Now, if not nil, is the clock for timestamps.
	Now func() time.Time
}

// Server serves the received messages of a capture to subscribers, in both
// HTTP layouts: the spec's (POST /aaep/v1/subscriptions, then GET
// /aaep/v1/events with "event: aaep.event" and "id:" lines, replies to POST
// /aaep/v1/replies) and the deployed one (GET /events with unnamed events,
// "id:" and "data:" lines, replies to POST /messages; every new subscriber
// gets the capture from its start), and over WebSocket at /aaep/v1/ws
// (subprotocol aaep.v1: the subscription.request as first message, then
// events one way and replies the other). A stream ends when the capture has
// been played; a stream asked for again after that is answered 204 No
// Content, which tells subscribers not to reconnect. A "Last-Event-ID"
// resumes after that event. Safe for concurrent use.
type Server struct {
	recs     []Record
	o        ServeOptions
	producer protocol.ProducerInfo

	mu     sync.Mutex      // guards below
	done   map[string]bool // streams played to the end, by subscription ID ("" for the deployed layout)
	issued map[string]bool // subscription IDs handed out
	hub    *hub            // with NoWait, once started
}

// maxReplyBytes bounds a message a subscriber sends.
const maxReplyBytes = 1 << 20

// PathWebSocket is where the Server accepts WebSocket subscribers.
const PathWebSocket = transport.DefaultWSPath

// NewServer returns a Server for the records of a capture. Sent messages,
// transport notes, frames that were not JSON and the recorded handshake are
// left out: the server makes its own handshake.
func NewServer(recs []Record, o ServeOptions) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Server{o: o, done: map[string]bool{}, issued: map[string]bool{}}
	for _, r := range recs {
		if r.Dir != In || r.Note || r.IsText() || strings.HasPrefix(protocol.PeekType(r.Msg), "subscription.") {
			continue
		}
		s.recs = append(s.recs, r)
	}
	s.producer = protocol.ProducerInfo{AgentID: "aaep-replay"}
	for _, r := range s.recs {
		var m struct {
			Producer protocol.ProducerInfo `json:"producer"`
		}
		if json.Unmarshal(r.Msg, &m) == nil && m.Producer.AgentID != "" {
			s.producer = m.Producer
			break
		}
	}
	return s
}

// Len returns how many messages each round sends.
func (s *Server) Len() int { return len(s.recs) }

// Start begins playing when NoWait is set; it returns at once, and the
// playing stops when ctx is done or the capture has been played. Without
// NoWait it does nothing.
func (s *Server) Start(ctx context.Context) {
	if !s.o.NoWait {
		return
	}
	h := newHub()
	s.mu.Lock()
	s.hub = h
	s.mu.Unlock()
	go func() {
		finished := s.play(ctx, 0, h.publish)
		h.close()
		if finished {
			s.finished("")
		}
	}()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/aaep/v1/subscriptions":
		s.subscribe(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/aaep/v1/events":
		id := r.URL.Query().Get("subscription_id")
		s.mu.Lock()
		known := s.issued[id]
		s.mu.Unlock()
		if !known {
			http.Error(w, "unknown subscription_id", http.StatusNotFound)
			return
		}
		s.stream(w, r, id, true)
	case r.Method == http.MethodGet && r.URL.Path == "/events":
		s.stream(w, r, "", false)
	case r.Method == http.MethodGet && r.URL.Path == PathWebSocket:
		s.websocket(w, r)
	case r.Method == http.MethodPost && (r.URL.Path == "/aaep/v1/replies" || r.URL.Path == "/messages"):
		s.reply(w, r)
	default:
		http.NotFound(w, r)
	}
}

// accept issues a subscription ID and returns the subscription.accepted
// message for it.
func (s *Server) accept() (string, []byte, error) {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported systems
	id := "sub_" + hex.EncodeToString(b[:])
	acc := protocol.SubscriptionAccepted{
		Type: protocol.TypeSubscriptionAccepted, SubscriptionID: id, AAEPVersion: "1.0.0",
		Producer:         s.producer,
		NegotiationNotes: "This is a recorded session replayed by aaep-replay; replies are received but change nothing.",
	}
	out, err := json.Marshal(acc)
	if err != nil {
		return "", nil, fmt.Errorf("capture: encode subscription.accepted: %w", err)
	}
	s.mu.Lock()
	s.issued[id] = true
	s.mu.Unlock()
	return id, out, nil
}

// check refuses a subscription.request the server cannot honour, with the
// reason codes and the checks of the built-in producer: an AAEP version
// other than 1.x, a malformed request or malformed capabilities, a demand
// for a signed manifest (a replayed capture has none).
func check(body []byte) *producer.Rejection {
	req, rej := producer.ReadRequest(body)
	if rej == nil {
		rej = producer.CheckCapabilities(req.Capabilities)
	}
	if rej == nil {
		rej = producer.CheckSignedManifest(req.Capabilities, false)
	}
	return rej
}

func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReplyBytes))
	if err != nil {
		http.Error(w, "cannot read the subscription.request", http.StatusBadRequest)
		return
	}
	if rej := check(body); rej != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rej.Status())
		_, _ = w.Write(rej.Message())
		return
	}
	id, out, err := s.accept()
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/aaep/v1/events?subscription_id="+id)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(out) // a subscriber gone away is its own problem
}

// over reports whether the stream id was already played to the end. The
// deployed layout (id "") names no subscription, so without NoWait each of
// its streams is a subscriber of its own and is never over before it starts.
func (s *Server) over(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		return s.o.NoWait && s.done[""]
	}
	return s.done[id]
}

// finished marks the stream id as played to the end.
func (s *Server) finished(id string) {
	s.mu.Lock()
	s.done[id] = true
	s.mu.Unlock()
	if s.o.OnDone != nil {
		s.o.OnDone()
	}
}

// deliver sends the capture to one subscriber through emit: a round of its
// own from start, or, with NoWait, what the playing sends from now on. It
// returns when the capture was sent, the playing ended, ctx is done or emit
// failed.
func (s *Server) deliver(ctx context.Context, id string, start int, emit func(msg []byte) error) {
	s.mu.Lock()
	h := s.hub
	s.mu.Unlock()
	if h == nil {
		if s.play(ctx, start, emit) {
			s.finished(id)
		}
		return
	}
	ch, leave := h.join()
	defer leave()
	for {
		select {
		case <-ctx.Done():
			return
		case msg, ok := <-ch:
			if !ok || emit(msg) != nil {
				return
			}
		}
	}
}

// stream plays the capture on one SSE stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id string, spec bool) {
	start, resumed := s.resumeAt(r.Header.Get("Last-Event-ID"))
	if s.over(id) || (resumed && start >= len(s.recs) && !s.o.Loop && !s.o.NoWait) {
		w.WriteHeader(http.StatusNoContent) // played to the end: do not reconnect
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	s.deliver(r.Context(), id, start, func(msg []byte) error {
		var err error
		if spec {
			_, err = fmt.Fprintf(w, "event: aaep.event\nid: %s\ndata: %s\n\n", eventID(msg), msg)
		} else {
			// Unnamed, for EventSource.onmessage; the id lets a reconnect
			// resume instead of hearing the capture again.
			_, err = fmt.Fprintf(w, "id: %s\ndata: %s\n\n", eventID(msg), msg)
		}
		if err == nil {
			fl.Flush()
		}
		return err
	})
}

// resumeAt returns the index a stream resuming after the event last starts
// at, and whether last names an event of the capture.
func (s *Server) resumeAt(last string) (int, bool) {
	start, found := 0, false
	if last == "" {
		return 0, false
	}
	for i, rec := range s.recs {
		if eventID(rec.Msg) == last {
			start, found = i+1, true
		}
	}
	return start, found
}

// WebSocket close codes: appendix B's for a clean end and a refusal.
const (
	wsCloseClean    = 4000
	wsCloseRejected = 4001
	wsWriteWait     = 10 * time.Second
	wsCloseWait     = 2 * time.Second
)

// websocket serves one subscriber over WebSocket.
func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(websocket.Subprotocols(r), transport.Subprotocol) {
		http.Error(w, "offer the "+transport.Subprotocol+" WebSocket subprotocol", http.StatusBadRequest)
		return
	}
	up := websocket.Upgrader{
		Subprotocols: []string{transport.Subprotocol},
		// Subscribers are programs, not pages: any origin may connect.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	defer c.Close()
	c.SetReadLimit(maxReplyBytes)
	var wmu sync.Mutex // one writer at a time
	send := func(msg []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.SetWriteDeadline(time.Now().Add(wsWriteWait))
		return c.WriteMessage(websocket.TextMessage, msg)
	}
	end := func(code int, reason string) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wsCloseWait))
	}
	_, first, err := c.ReadMessage()
	if err != nil {
		return
	}
	if rej := check(first); rej != nil {
		_ = send(rej.Message())
		end(wsCloseRejected, rej.Code())
		return
	}
	id, acc, err := s.accept()
	if err != nil || send(acc) != nil {
		return
	}
	if s.over(id) {
		end(wsCloseClean, "the capture has been served")
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer cancel() // the subscriber left: stop sending
		for {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			if s.o.OnReply != nil {
				s.o.OnReply(PathWebSocket, msg)
			}
			if protocol.PeekType(msg) == protocol.TypeSubscriptionClose {
				return
			}
		}
	}()
	s.deliver(ctx, id, 0, send)
	end(wsCloseClean, "the capture has been served")
	select { // the subscriber answers the close; if not, cut it
	case <-read:
	case <-time.After(wsCloseWait):
	}
}

// play sends the records from index start through emit, paced, once or
// (Loop) until ctx is done. It reports whether the capture was played to
// the end.
func (s *Server) play(ctx context.Context, start int, emit func(msg []byte) error) bool {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return ctx.Err() == nil
		}
		timer.Reset(d)
		select {
		case <-timer.C:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for round := 1; ; round++ {
		for i := start; i < len(s.recs); i++ {
			if i > start && !wait(s.pause(s.recs[i-1], s.recs[i])) {
				return false
			}
			if ctx.Err() != nil || emit(s.message(s.recs[i].Msg, round)) != nil {
				return false
			}
		}
		if !s.o.Loop || len(s.recs) == 0 {
			return wait(s.o.Linger)
		}
		start = 0
		if !wait(s.roundGap()) {
			return false
		}
	}
}

// roundGap is the pause between two rounds of a loop: a second at speed 1.
func (s *Server) roundGap() time.Duration {
	if s.o.Speed <= 0 {
		return 0
	}
	d := time.Duration(float64(time.Second) / s.o.Speed)
	if s.o.IdleLimit > 0 {
		d = min(d, s.o.IdleLimit)
	}
	return d
}

// pause is how long to wait between two records.
func (s *Server) pause(prev, next Record) time.Duration {
	if s.o.Speed <= 0 || !prev.HasT || !next.HasT || next.T <= prev.T {
		return 0
	}
	d := time.Duration((next.T - prev.T) / s.o.Speed * float64(time.Second))
	if s.o.IdleLimit > 0 {
		d = min(d, s.o.IdleLimit)
	}
	return d
}

// message is msg as sent in round: restamped unless KeepTimestamps, with
// fresh IDs from round 2 on. msg is returned as recorded when nothing changes.
func (s *Server) message(msg []byte, round int) []byte {
	if s.o.KeepTimestamps && round == 1 {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	if !s.o.KeepTimestamps {
		if _, ok := m["timestamp"]; ok {
			ts, _ := json.Marshal(s.o.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
			m["timestamp"] = ts
		}
	}
	if round > 1 {
		for _, k := range []string{"event_id", "session_id", "reply_token"} {
			var v string
			if raw, ok := m[k]; ok && json.Unmarshal(raw, &v) == nil && v != "" {
				m[k], _ = json.Marshal(roundID(v, round))
			}
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// roundID is id made unique to round: "evt_abc" becomes "evt_abcr2", cut
// so that what follows the prefix stays within 64 characters.
func roundID(id string, round int) string {
	suffix := fmt.Sprintf("r%d", round)
	prefix, rest, ok := strings.Cut(id, "_")
	if !ok {
		prefix, rest = "", id
	} else {
		prefix += "_"
	}
	if n := 64 - len(suffix); len(rest) > n {
		rest = rest[:n]
	}
	return prefix + rest + suffix
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReplyBytes))
	if err != nil {
		http.Error(w, "could not read the message", http.StatusBadRequest)
		return
	}
	if s.o.OnReply != nil {
		s.o.OnReply(r.URL.Path, body)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, `{"status":"received"}`)
}

// eventID returns the event_id of a message, without its bytes that could
// break an SSE line.
func eventID(msg []byte) string {
	var m struct {
		ID string `json:"event_id"`
	}
	if json.Unmarshal(msg, &m) != nil || strings.ContainsAny(m.ID, "\r\n") {
		return ""
	}
	return m.ID
}

// hubBuffer is how many messages a slow subscriber may fall behind before
// it is cut off (it can reconnect; a live producer would do the same).
const hubBuffer = 4096

// hub fans the one playing of a NoWait server out to the subscribers there.
type hub struct {
	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	closed bool
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

// join returns a channel of what is published from now on, closed when
// the playing ends or the subscriber falls too far behind, and a function
// to leave.
func (h *hub) join() (<-chan []byte, func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan []byte, hubBuffer)
	if h.closed {
		close(ch)
		return ch, func() {}
	}
	h.subs[ch] = struct{}{}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// publish sends msg to every subscriber; it never blocks.
func (h *hub) publish(msg []byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- msg:
		default: // too far behind: cut off rather than hold everyone up
			delete(h.subs, ch)
			close(ch)
		}
	}
	return nil
}

// close ends every subscriber's channel.
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}
