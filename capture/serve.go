// serve.go: serving a capture as a producer over HTTP and Server-Sent Events.

package capture

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// ServeOptions configures a Server. The zero value sends everything at once.
type ServeOptions struct {
	// Speed divides the recorded pauses: 1 is as recorded, 2 twice as fast;
	// 0 sends without pauses.
	Speed float64
	// IdleLimit caps every pause; zero means no cap.
	IdleLimit time.Duration
	// OnReply, if not nil, is told every message a subscriber POSTs (replies,
	// renegotiation, close), with the path it came to. It may be called from
	// several goroutines at once.
	OnReply func(path string, body []byte)
	// OnDone, if not nil, is called each time a stream has sent the whole capture.
	OnDone func()
}

// Server serves the received messages of a capture to subscribers, in both
// HTTP layouts: the spec's (POST /aaep/v1/subscriptions, then GET
// /aaep/v1/events with "event: aaep.event" and "id:" lines, replies to POST
// /aaep/v1/replies) and the deployed one (GET /events with bare "data:"
// lines, replies to POST /messages). Each stream plays the capture from the
// start, paced by its recorded times, and then ends; a stream asked for again
// after that is answered 204 No Content, which tells subscribers not to
// reconnect. A "Last-Event-ID" resumes after that event. Safe for concurrent use.
type Server struct {
	recs     []Record
	o        ServeOptions
	producer protocol.ProducerInfo

	mu     sync.Mutex      // guards below
	done   map[string]bool // streams played to the end, by subscription ID ("" for the deployed layout)
	issued map[string]bool // subscription IDs handed out
}

// maxReplyBytes bounds a POSTed message.
const maxReplyBytes = 1 << 20

// NewServer returns a Server for the records of a capture. Sent messages,
// transport notes, frames that were not JSON and the recorded handshake are
// left out: the server makes its own handshake.
func NewServer(recs []Record, o ServeOptions) *Server {
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

// Len returns how many messages each stream sends.
func (s *Server) Len() int { return len(s.recs) }

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
	case r.Method == http.MethodPost && (r.URL.Path == "/aaep/v1/replies" || r.URL.Path == "/messages"):
		s.reply(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReplyBytes))
	if err != nil || protocol.PeekType(body) != protocol.TypeSubscriptionRequest {
		http.Error(w, "want a subscription.request", http.StatusBadRequest)
		return
	}
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on supported systems
	id := "sub_" + hex.EncodeToString(b[:])
	s.mu.Lock()
	s.issued[id] = true
	s.mu.Unlock()
	acc := protocol.SubscriptionAccepted{
		Type: protocol.TypeSubscriptionAccepted, SubscriptionID: id, AAEPVersion: "1.0.0",
		Producer:         s.producer,
		NegotiationNotes: "This is a recorded session replayed by aaep-replay; replies are received but change nothing.",
	}
	out, err := json.Marshal(acc)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Location", "/aaep/v1/events?subscription_id="+id)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(out) // a subscriber gone away is its own problem
}

// stream plays the capture on one SSE stream.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, id string, spec bool) {
	s.mu.Lock()
	over := s.done[id]
	s.mu.Unlock()
	if over {
		w.WriteHeader(http.StatusNoContent)
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
	start := 0
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		for i, rec := range s.recs {
			if eventID(rec.Msg) == last {
				start = i + 1
			}
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := start; i < len(s.recs); i++ {
		if i > start {
			if d := s.pause(s.recs[i-1], s.recs[i]); d > 0 {
				timer.Reset(d)
				select {
				case <-timer.C:
				case <-r.Context().Done():
					return
				}
			}
		}
		msg := s.recs[i].Msg
		var err error
		if spec {
			_, err = fmt.Fprintf(w, "event: aaep.event\nid: %s\ndata: %s\n\n", eventID(msg), msg)
		} else {
			_, err = fmt.Fprintf(w, "data: %s\n\n", msg)
		}
		if err != nil {
			return
		}
		fl.Flush()
	}
	s.mu.Lock()
	s.done[id] = true
	s.mu.Unlock()
	if s.o.OnDone != nil {
		s.o.OnDone()
	}
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
