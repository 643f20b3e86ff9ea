package producer

// This file holds Flood: a fast stream of valid events for load tests.

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// floodEventSize is roughly how long each flood event's JSON is.
const floodEventSize = 500

// Flood writes n valid events as Server-Sent Events (spec framing, "event:
// aaep.event" and "id:") to w, as fast as w takes them. The events are spread
// round-robin over sessions sessions (fewer when n < 2×sessions): each
// session starts with agent.session.started, goes on with
// agent.progress.updated events and ends with agent.session.completed. Each
// event's JSON is about 500 bytes; event IDs are unique to the call and
// sequence numbers count up per session.
func Flood(w io.Writer, n, sessions int) error {
	if n <= 0 {
		return nil
	}
	sessions = max(1, min(sessions, n/2))
	now := time.Now().UTC()
	run := randomHex(4)
	started := make([]*template, sessions)
	progress := make([]*template, sessions)
	completed := make([]*template, sessions)
	for k := range sessions {
		sess := fmt.Sprintf("sess_%s%08x", run, k)
		started[k] = newTemplate(run, sess, protocol.TypeSessionStarted, protocol.UrgencyNormal,
			`"summary_normal":"Load test session started."`, false)
		progress[k] = newTemplate(run, sess, protocol.TypeProgressUpdated, protocol.UrgencyBackground,
			`"progress":{"step":`, true)
		completed[k] = newTemplate(run, sess, protocol.TypeSessionCompleted, protocol.UrgencyNormal,
			`"summary_normal":"Load test session completed."`, false)
	}

	bw := bufio.NewWriterSize(w, 256<<10)
	seq := make([]uint64, sessions)
	stamp := []byte(now.Format(timeLayout))
	buf := make([]byte, 0, 2*floodEventSize)
	for i := range n {
		if i%4096 == 0 && i > 0 {
			stamp = time.Now().UTC().AppendFormat(stamp[:0], timeLayout)
		}
		var t *template
		var k int
		switch {
		case i < sessions:
			k, t = i, started[i]
		case i >= n-sessions && n >= 2*sessions:
			k = i - (n - sessions)
			t = completed[k]
		default:
			k = (i - sessions) % sessions
			t = progress[k]
		}
		buf = t.render(buf[:0], uint64(i), seq[k], stamp)
		seq[k]++
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("producer: flood: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("producer: flood: %w", err)
	}
	return nil
}

// FloodHandler serves Flood(n, sessions) to every GET, as an event stream.
func FloodHandler(n, sessions int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if err := Flood(w, n, sessions); err != nil {
			return // the client left
		}
		_ = http.NewResponseController(w).Flush()
	})
}

const timeLayout = "2006-01-02T15:04:05.000Z"

// template is one pre-rendered SSE event with fixed-width slots for what
// changes from event to event.
type template struct {
	b                      []byte
	id1, id2, seq, ts, pos int // slot offsets; pos < 0 when unused
}

const (
	idWidth  = 16 // hexadecimal digits of the event counter
	seqWidth = 20 // a uint64 in decimal, right-aligned after spaces
)

// newTemplate renders one event of session sess. payload is the first
// payload member(s); with step, it opens a progress object whose step is the
// sequence number.
func newTemplate(run, sess, typ string, urgency protocol.Urgency, payload string, step bool) *template {
	t := &template{pos: -1}
	add := func(s string) { t.b = append(t.b, s...) }
	slot := func(width int) int {
		off := len(t.b)
		t.b = append(t.b, strings.Repeat(" ", width)...)
		return off
	}
	add("event: aaep.event\nid: evt_" + run)
	t.id1 = slot(idWidth)
	add("\ndata: {\"@context\":\"" + protocol.ContextURL + "\",\"aaep_version\":\"" + protocol.Version +
		"\",\"type\":\"" + typ + "\",\"event_id\":\"evt_" + run)
	t.id2 = slot(idWidth)
	add(`","session_id":"` + sess + `","sequence_number":`)
	t.seq = slot(seqWidth)
	add(`,"timestamp":"`)
	t.ts = slot(len(timeLayout))
	add(`","producer":{"agent_id":"aaep-term-flood","agent_name":"Load test producer","agent_version":"` + protocol.Version +
		`"},"verbosity":"normal","urgency":"` + string(urgency) +
		`","localization_hints":{"primary_language":"en-US","text_direction":"ltr"},` + payload)
	if step {
		t.pos = slot(seqWidth)
		add(`},"summary_normal":"Load test progress: `)
	} else {
		add(`,"summary_detailed":"`)
	}
	start := strings.Index(string(t.b), "data: ") + len("data: ")
	if pad := floodEventSize - (len(t.b) - start) - len(`."}`); pad > 0 {
		add(strings.Repeat("x", pad))
	}
	add(".\"}\n\n")
	return t
}

// render appends the event numbered i, sequence number seq of its session,
// stamped at stamp.
func (t *template) render(dst []byte, i, seq uint64, stamp []byte) []byte {
	off := len(dst)
	dst = append(dst, t.b...)
	var id [8]byte
	binary.BigEndian.PutUint64(id[:], i)
	hex.Encode(dst[off+t.id1:], id[:])
	copy(dst[off+t.id2:], dst[off+t.id1:off+t.id1+idWidth])
	putNumber(dst[off+t.seq:off+t.seq+seqWidth], seq)
	copy(dst[off+t.ts:], stamp)
	if t.pos >= 0 {
		putNumber(dst[off+t.pos:off+t.pos+seqWidth], seq)
	}
	return dst
}

// putNumber writes v right-aligned in the space-filled slot; JSON allows the
// spaces before a number.
func putNumber(slot []byte, v uint64) {
	var d [20]byte
	s := strconv.AppendUint(d[:0], v, 10)
	copy(slot[len(slot)-len(s):], s)
}
