package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/protocol"
)

// stage is the scripted producer the subscriber tests serve: the HTTP
// binding in the spec's layout (appendix B.1), a handshake by POST, one
// event stream by GET and messages by POST. The suite, not a scenario,
// decides when each event is written, so every wait is measured from the
// moment a frame was flushed to the subscriber.
//
// It serves one subscription; a second request is answered like the
// first, and every stream is written every event from its start (or
// after its Last-Event-ID).
type stage struct {
	start time.Time
	subID string
	srv   *producer.Server
	ln    net.Listener

	mu        sync.Mutex
	log       []Evidence // every frame both ways and every note, in order
	got       []heard    // what the subscriber sent, in order
	changed   chan struct{}
	frames    [][]byte        // every event sent, in order; each stream writes them all
	flushed   []time.Duration // when each frame was first flushed to a subscriber; 0: not yet
	wrote     chan struct{}   // signalled when a frame is flushed
	more      chan struct{}   // closed and replaced when a frame is added or the stage closes
	closed    bool
	streams   int                        // streams opened
	dropped   int                        // messages heard beyond maxHeard
	requested map[string]json.RawMessage // the capabilities first asked for
	streamUp  chan struct{}              // closed when the first stream opens
	bare      bool                       // a stream was opened without a subscription (Level 1, no handshake)
	said      []byte                     // what the subscriber run by Exec wrote, up to maxSaid bytes
	saidMore  chan struct{}              // signalled when it writes
}

// heard is one message the subscriber sent.
type heard struct {
	at   time.Duration
	path string
	typ  string
	m    map[string]json.RawMessage
	raw  json.RawMessage
}

// maxMessage is the largest message body the stage reads; maxHeard is how
// many messages it keeps (a subscriber sending more is counted, not kept).
const (
	maxMessage = 1 << 20
	maxHeard   = 1000
	maxSaid    = 4 << 20
)

func newStage(addr string, ln net.Listener) (*stage, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			return nil, fmt.Errorf("conform: serving the subscriber tests: %w", err)
		}
	}
	s := &stage{
		start:    time.Now(),
		subID:    "sub_conform01",
		ln:       ln,
		changed:  make(chan struct{}, 1),
		more:     make(chan struct{}),
		wrote:    make(chan struct{}, 1),
		streamUp: make(chan struct{}),
		saidMore: make(chan struct{}, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+protocol.PathSubscriptions, s.subscribe)
	mux.HandleFunc("GET "+protocol.PathEvents, s.events)
	mux.HandleFunc("GET /events", s.events) // the layout deployed producers serve, without a handshake
	mux.HandleFunc("POST "+protocol.PathReplies, s.message)
	mux.HandleFunc("GET "+protocol.PathWebSocket, s.websocket)
	s.srv = producer.ServeHandler(ln, mux)
	return s, nil
}

// endpoint is the base URL a subscriber is given.
func (s *stage) endpoint() string { return "http://" + s.ln.Addr().String() }

func (s *stage) close() {
	s.mu.Lock()
	s.closed = true
	close(s.more) // ends every stream
	s.mu.Unlock()
	s.srv.Stop()
}

func (s *stage) since() time.Duration { return time.Since(s.start) }

// note records an observation and returns its index in the log.
func (s *stage) note(dir string, frame []byte, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noteLocked(dir, frame, text)
}

func (s *stage) noteLocked(dir string, frame []byte, text string) {
	if len(s.log) >= 4*maxHeard {
		return // the messages kept are counted; the notes after them would say nothing new
	}
	e := Evidence{At: s.since(), Dir: dir, Note: text}
	if json.Valid(frame) {
		e.Frame = append(json.RawMessage(nil), frame...)
	} else if len(frame) > 0 {
		e.Note = fmt.Sprintf("%s (not JSON: %q)", text, truncate(string(frame), 200))
	}
	s.log = append(s.log, e)
}

// hear records a message from the subscriber and wakes whoever waits.
func (s *stage) hear(path string, body []byte) heard {
	var m map[string]json.RawMessage
	json.Unmarshal(body, &m) //nolint:errcheck // nil map: not an object
	h := heard{path: path, m: m, raw: append(json.RawMessage(nil), body...)}
	h.typ, _ = str(m, "type")
	s.mu.Lock()
	h.at = s.since()
	if len(s.got) < maxHeard {
		s.got = append(s.got, h)
		s.noteLocked("received", body, "on "+path)
	} else {
		s.dropped++
	}
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return h
}

func str(m map[string]json.RawMessage, name string) (string, bool) {
	var v string
	if err := json.Unmarshal(m[name], &v); err != nil {
		return "", false
	}
	return v, true
}

func (s *stage) subscribe(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMessage))
	if err != nil {
		return
	}
	status, answer := s.onRequest(r.URL.Path, body)
	s.reply(w, status, answer)
}

// onRequest hears a subscription request and returns the answer: accepted
// with lower terms than asked, or rejected when it is not one.
func (s *stage) onRequest(via string, body []byte) (int, any) {
	h := s.hear(via, body)
	if h.typ != protocol.TypeSubscriptionRequest {
		return http.StatusBadRequest, map[string]any{"type": protocol.TypeSubscriptionRejected,
			"reason_code": "unknown", "reason_message": "the body is not a subscription.request"}
	}
	var caps map[string]json.RawMessage
	json.Unmarshal(h.m["capabilities"], &caps) //nolint:errcheck // none asked
	s.mu.Lock()
	s.requested = caps
	s.mu.Unlock()
	return http.StatusCreated, s.accepted(lowerTerms(caps), "The conformance suite honors a lower rate than asked, on purpose.")
}

func (s *stage) accepted(honored map[string]any, notes string) map[string]any {
	m := map[string]any{
		"type":                 protocol.TypeSubscriptionAccepted,
		"subscription_id":      s.subID,
		"aaep_version":         protocol.Version,
		"producer":             stageAgent,
		"honored_capabilities": honored,
	}
	if notes != "" {
		m["negotiation_notes"] = notes
	}
	return m
}

// lowerTerms honors what was asked, but a lower rate than asked, so the
// subscriber must accept terms below its request: half the rate asked
// (rounded down), or 20 events a second when it asked for no limit. A rate
// below 2 is honored as asked.
func lowerTerms(caps map[string]json.RawMessage) map[string]any {
	h := map[string]any{"preferred_verbosity": "normal"}
	var asked float64
	switch {
	case json.Unmarshal(caps["max_events_per_second"], &asked) != nil || asked <= 0:
		h["max_events_per_second"] = 20
	case asked >= 2:
		h["max_events_per_second"] = int(asked / 2)
	default:
		h["max_events_per_second"] = asked
	}
	for _, name := range []string{"supports_confirmation_reply", "supports_clarification_reply"} {
		var b bool
		json.Unmarshal(caps[name], &b) //nolint:errcheck // false
		h[name] = b
	}
	h["languages"] = []string{"en-US"}
	if f, ok := caps["event_filters"]; ok {
		h["event_filters"] = f // honored as asked: at least as restrictive (§5.4.4)
	}
	return h
}

var stageAgent = map[string]string{"agent_id": "aaep-conform-stage", "agent_name": "Conformance Stage", "agent_version": "1.0.0"}

// reply writes a JSON answer and logs it as sent.
func (s *stage) reply(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	s.note("sent", b, fmt.Sprintf("answer, HTTP %d", status))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b) //nolint:errcheck // the subscriber went away
}

func (s *stage) events(w http.ResponseWriter, r *http.Request) {
	switch sub := r.URL.Query().Get("subscription_id"); sub {
	case s.subID:
	case "": // Level 1 needs no handshake (§9.3.3): the default terms apply
		s.mu.Lock()
		s.bare = true
		s.mu.Unlock()
	default:
		http.Error(w, "no such subscription", http.StatusNotFound)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	s.pump(r.Context(), s.resume(r.Header.Get("Last-Event-ID")), func(id string, frame []byte) error {
		if _, err := fmt.Fprintf(w, "event: aaep.event\nid: %s\ndata: %s\n\n", id, frame); err != nil {
			return err
		}
		fl.Flush()
		return nil
	})
}

// pump counts a new stream and writes it every frame from next on, as
// they come, until ctx ends, the stage closes or a write fails.
func (s *stage) pump(ctx context.Context, next int, write func(id string, frame []byte) error) {
	s.mu.Lock()
	s.streams++
	n := s.streams
	s.noteLocked("note", nil, fmt.Sprintf("stream %d opened", n))
	if n == 1 {
		close(s.streamUp)
	}
	s.mu.Unlock()
	for {
		s.mu.Lock()
		first, frames, more, closed := next, s.frames[next:], s.more, s.closed
		next = len(s.frames)
		s.mu.Unlock()
		for i, frame := range frames {
			var e struct {
				ID string `json:"event_id"`
			}
			json.Unmarshal(frame, &e) //nolint:errcheck // the stage wrote it
			if err := write(e.ID, frame); err != nil {
				s.note("note", nil, fmt.Sprintf("stream %d broke: %v", n, err))
				return
			}
			s.mu.Lock()
			if s.flushed[first+i] == 0 {
				s.flushed[first+i] = s.since()
			}
			s.noteLocked("sent", frame, fmt.Sprintf("event on stream %d", n))
			s.mu.Unlock()
			select {
			case s.wrote <- struct{}{}:
			default:
			}
		}
		if closed {
			return
		}
		select {
		case <-ctx.Done():
			s.note("note", nil, fmt.Sprintf("stream %d closed by the subscriber", n))
			return
		case <-more:
		}
	}
}

// resume returns the index of the first frame a stream resuming after
// the event lastID must write: all of them when lastID is unknown.
func (s *stage) resume(lastID string) int {
	if lastID == "" {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	needle := []byte(`"event_id":"` + lastID + `"`)
	for i, f := range s.frames {
		if bytes.Contains(f, needle) {
			return i + 1
		}
	}
	return 0
}

func (s *stage) message(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMessage))
	if err != nil {
		return
	}
	_, status, answer := s.onMessage(r.URL.Path, body)
	s.reply(w, status, answer)
}

// onMessage hears a message sent after the handshake and returns its type
// and answer: a renegotiation gets exactly the rate it asks for, the rest
// of its terms as first requested.
func (s *stage) onMessage(via string, body []byte) (string, int, any) {
	h := s.hear(via, body)
	switch h.typ {
	case protocol.TypeSubscriptionRenegotiate:
		var changes map[string]json.RawMessage
		json.Unmarshal(h.m["capabilities"], &changes) //nolint:errcheck // none
		s.mu.Lock()
		merged := maps.Clone(s.requested)
		s.mu.Unlock()
		if merged == nil {
			merged = map[string]json.RawMessage{}
		}
		maps.Copy(merged, changes)
		honored := lowerTerms(merged)
		var rate float64
		if json.Unmarshal(changes["max_events_per_second"], &rate) == nil && rate > 0 {
			honored["max_events_per_second"] = rate
		}
		return h.typ, http.StatusOK, s.accepted(honored, "")
	case protocol.TypeSubscriptionClose:
		return h.typ, http.StatusAccepted, map[string]string{"status": "closed"}
	default:
		return h.typ, http.StatusAccepted, map[string]string{"status": "accepted"}
	}
}

// send adds one event for every stream, open or still to come, and
// returns its index.
func (s *stage) send(ev map[string]any) int {
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err) // the stage's own events always marshal
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames = append(s.frames, b)
	s.flushed = append(s.flushed, 0)
	close(s.more)
	s.more = make(chan struct{})
	return len(s.frames) - 1
}

// delivered waits until frame i has been flushed to a subscriber, for at
// most d, and returns when it was.
func (s *stage) delivered(ctx context.Context, i int, d time.Duration) (time.Duration, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		at := s.flushed[i]
		s.mu.Unlock()
		if at != 0 {
			return at, true
		}
		select {
		case <-s.wrote:
		case <-t.C:
			return 0, false
		case <-ctx.Done():
			return 0, false
		}
	}
}

// mark returns how many messages have been heard, to wait for later ones.
func (s *stage) mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// await waits until a message heard at index from or later satisfies ok,
// until d has passed or ctx ends. It reports the message and whether one
// came.
func (s *stage) await(ctx context.Context, from int, d time.Duration, ok func(heard) bool) (heard, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		for i := from; i < len(s.got); i++ {
			if ok(s.got[i]) {
				h := s.got[i]
				s.mu.Unlock()
				return h, true
			}
		}
		from = len(s.got)
		s.mu.Unlock()
		select {
		case <-s.changed:
		case <-t.C:
			return heard{}, false
		case <-ctx.Done():
			return heard{}, false
		}
	}
}

// heardAll returns a copy of every message heard.
func (s *stage) heardAll() []heard {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]heard(nil), s.got...)
}

// transcript returns the session as it went: every frame both ways and
// every note, with times.
func (s *stage) transcript() []Evidence {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := slices.Clone(s.log)
	if s.dropped > 0 {
		t = append(t, Evidence{At: s.since(), Dir: "note", Note: fmt.Sprintf("%d more messages from the subscriber were counted, not kept", s.dropped)})
	}
	return t
}

// isType matches a message by type.
func isType(typ string) func(heard) bool {
	return func(h heard) bool { return h.typ == typ }
}

// isReply matches a confirmation or clarification reply.
func isReply(h heard) bool {
	return h.typ == protocol.TypeConfirmationReply || h.typ == protocol.TypeClarificationReply ||
		h.m["reply_token"] != nil || bytes.Contains(h.raw, []byte("reply_token"))
}

// Write keeps what the subscriber run by Exec writes, up to maxSaid
// bytes, for the tests of what it announces; it never fails.
func (s *stage) Write(p []byte) (int, error) {
	s.mu.Lock()
	if room := maxSaid - len(s.said); room > 0 {
		s.said = append(s.said, p[:min(room, len(p))]...)
	}
	s.mu.Unlock()
	select {
	case s.saidMore <- struct{}{}:
	default:
	}
	return len(p), nil
}

// output returns a copy of what the subscriber has written so far.
func (s *stage) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.said)
}

// announced waits until the subscriber's output holds word, for at most
// d, and reports whether it does. Each wake searches only what was
// written since the last (and the few bytes before, where word may
// start), so a subscriber writing without end costs no more than once
// through its output.
func (s *stage) announced(ctx context.Context, word string, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	from := 0
	found := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		start := max(0, from-len(word)+1)
		from = len(s.said)
		return bytes.Contains(s.said[start:], []byte(word))
	}
	for {
		if found() {
			return true
		}
		select {
		case <-s.saidMore:
		case <-t.C:
			return found()
		case <-ctx.Done():
			return false
		}
	}
}

// wants reports whether the subscriber's event filters (§5.3.1.7), as
// first asked, let an event of type typ through. Critical events are sent
// whatever the filters say: the subscriber must still announce them.
func (s *stage) wants(typ string, critical bool) bool {
	if critical {
		return true
	}
	s.mu.Lock()
	var f struct{ Include, Exclude []string }
	json.Unmarshal(s.requested["event_filters"], &f) //nolint:errcheck // no filters
	s.mu.Unlock()
	if slices.ContainsFunc(f.Exclude, func(p string) bool { return typeMatches(p, typ) }) {
		return false
	}
	return len(f.Include) == 0 || slices.ContainsFunc(f.Include, func(p string) bool { return typeMatches(p, typ) })
}

// typeMatches matches an event type pattern: the type itself or a prefix
// ending in *, in either the compact or the full form of the type.
func typeMatches(pattern, typ string) bool {
	pattern, typ = protocol.NormalizeType(pattern), protocol.NormalizeType(typ)
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(typ, prefix)
	}
	return pattern == typ
}
