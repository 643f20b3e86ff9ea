package producer

// This file reads each recorded event of a replay once, when it is
// prepared, so that serving it costs no JSON decoding: what a stream is
// sent is the recorded bytes, with the members that change when it is
// sent (its timestamp; its IDs from a loop's second round on) spliced in.

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// Members of a recorded event that may change when it is sent.
const (
	memberTimestamp = iota
	memberEventID
	memberSessionID
	memberReplyToken
)

// span is where a top-level member's value lies in a recorded event.
type span struct {
	member     int
	start, end int    // the value's bytes, quotes included
	value      string // the value, when it is a string (IDs)
}

// recMeta is what serving a recorded event needs to know of it.
type recMeta struct {
	rec   record // as published in round 1, data aside
	spans []span // in the order of their offsets
	agent protocol.ProducerInfo
}

// readMeta reads the top-level members of msg, a compact JSON object, that
// serving it needs.
func readMeta(msg []byte) recMeta {
	var m recMeta
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return m
	}
	var urgency string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return m
		}
		key, _ := t.(string)
		from := int(dec.InputOffset())
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return m
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		var s string
		isString := len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil
		if start < from {
			return m // not where a compact object has it
		}
		switch key {
		case "timestamp":
			m.spans = append(m.spans, span{member: memberTimestamp, start: start, end: end})
		case "event_id":
			if isString && !strings.ContainsAny(s, "\r\n") { // an SSE id line cannot hold them
				m.rec.id = s
			}
			if isString && s != "" {
				m.spans = append(m.spans, span{memberEventID, start, end, s})
			}
		case "session_id":
			m.rec.session = s
			if isString && s != "" {
				m.spans = append(m.spans, span{memberSessionID, start, end, s})
			}
		case "reply_token":
			if isString && s != "" {
				m.spans = append(m.spans, span{memberReplyToken, start, end, s})
			}
		case "type":
			m.rec.typ = s
		case "urgency":
			urgency = s
		case "producer":
			_ = json.Unmarshal(raw, &m.agent)
		}
	}
	m.rec.critical = protocol.Urgency(urgency) == protocol.UrgencyCritical || urgencyOf(m.rec.typ) == protocol.UrgencyCritical
	return m
}

// stamper formats the time of sending as a JSON string, reusing it within
// one millisecond.
type stamper struct {
	now  func() time.Time
	last time.Time
	json []byte
}

func (s *stamper) stamp() []byte {
	t := s.now().UTC().Truncate(time.Millisecond)
	if s.json == nil || !t.Equal(s.last) {
		s.last = t
		s.json = jsonString(t.Format("2006-01-02T15:04:05.000Z07:00"))
	}
	return s.json
}

// send returns the record of the recorded event msg as sent in round: its
// timestamp the time of sending unless keep, its IDs made unique to the
// round from round 2 on. msg is sent as recorded when nothing changes.
func (m *recMeta) send(msg []byte, round int, keep bool, st *stamper) record {
	rec := m.rec
	rec.data = msg
	if round > 1 {
		if rec.id != "" {
			rec.id = roundID(rec.id, round)
		}
		if rec.session != "" {
			rec.session = roundID(rec.session, round)
		}
	}
	var b []byte
	last := 0
	for _, s := range m.spans {
		var v []byte
		switch {
		case s.member == memberTimestamp && !keep:
			v = st.stamp()
		case s.member != memberTimestamp && round > 1:
			v = jsonString(roundID(s.value, round))
		default:
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(msg)+16)
		}
		b = append(append(b, msg[last:s.start]...), v...)
		last = s.end
	}
	if b != nil {
		rec.data = append(b, msg[last:]...)
	}
	return rec
}
