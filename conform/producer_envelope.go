package conform

// This file judges the envelope rules the schemas alone cannot hold (spec
// section 3.2): event_id not reused for other content, sequence_number
// from 0 by ones on every event or none, timestamps of 3 or 6 fractional
// digits that never go back in a session nor lie in the future, and an
// aaep_version that was published.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// futureSkew is how far ahead of the suite's clock a timestamp may be
// before it is taken as future-dated: the producer's clock may differ a
// little from ours, not by minutes.
const futureSkew = time.Minute

// published are the versions of AAEP the suite knows were published.
var published = []string{protocol.Version}

// preRelease matches the pre-releases named before 1.0.0 (spec 12.1.1).
var preRelease = regexp.MustCompile(`^(0\.[0-9]+\.[0-9]+|1\.0\.0)-(draft|alpha|beta|rc\.[0-9]+)$`)

// fraction matches the fractional seconds of an RFC 3339 timestamp.
var fraction = regexp.MustCompile(`T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.([0-9]*))?`)

// named says which event e is, for a detail line: its type, event_id and
// sequence_number when it has one.
func named(e *protocol.Event) string {
	s := protocol.Sanitize(e.Type) + " " + protocol.Sanitize(e.EventID)
	if e.HasSeq {
		s += fmt.Sprintf(" (sequence %d)", e.Seq)
	}
	return s
}

// judgeEnvelope checks the envelope rules on the events of one stream
// without filters.
func (r *prun) judgeEnvelope(s *psub, fs []seen) {
	type sess struct {
		n       int // events seen
		withSeq int
		seq     int64
		last    time.Time
	}
	byID := map[string][]byte{}
	all := map[string]*sess{}
	who := "seen by subscription " + s.name
	// Only main, which can answer prompts and filters nothing, is sent
	// every event of a session (a subscription that cannot answer is not
	// sent prompts, spec 5.3.1.4): elsewhere the numbers need only rise.
	strict := s == r.main && r.o.Level >= 2
	n := 0
	for _, f := range fs {
		e := f.ev
		if e == nil {
			continue
		}
		n++
		if old, ok := byID[e.EventID]; ok {
			if !sameJSON(old, f.data) {
				r.result(PEnvelopeRules, Fail, fmt.Sprintf("The event_id of %s was used before for another event.", named(e)), r.frame(f, who))
			}
			continue // a copy of an event already judged
		}
		byID[e.EventID] = f.data
		var raw struct {
			Timestamp   string  `json:"timestamp"`
			AAEPVersion *string `json:"aaep_version"`
		}
		_ = json.Unmarshal(f.data, &raw)
		if m := fraction.FindStringSubmatch(raw.Timestamp); m != nil && m[1] != "" && len(m[2]) != 3 && len(m[2]) != 6 {
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("The timestamp of %s has %d fractional digits, where only 3 or 6 may be used.", named(e), len(m[2])), r.frame(f, who))
		}
		if v := raw.AAEPVersion; v != nil && !slices.Contains(published, *v) && !preRelease.MatchString(*v) {
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s names aaep_version %q, not a published version of AAEP (this suite knows %s).", named(e), protocol.Sanitize(*v), protocol.Version), r.frame(f, who))
		}
		if !e.Timestamp.IsZero() && e.Timestamp.Sub(f.at) > futureSkew {
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s is dated %v after it arrived: future-dated.", named(e), e.Timestamp.Sub(f.at).Round(time.Second)), r.frame(f, who))
		}
		if e.SessionID == "" {
			continue
		}
		ss := all[e.SessionID]
		if ss == nil {
			ss = &sess{}
			all[e.SessionID] = ss
		}
		ss.n++
		if !e.Timestamp.IsZero() {
			if e.Timestamp.Before(ss.last) {
				r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s is dated %v before the event of its session that came before it.", named(e), ss.last.Sub(e.Timestamp).Round(time.Millisecond)), r.frame(f, who))
			}
			ss.last = e.Timestamp
		}
		if e.HasSeq {
			ss.withSeq++
		}
		switch {
		case ss.withSeq != 0 && ss.withSeq != ss.n:
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s breaks its session's use of sequence_number: it is on some events and not on others.", named(e)), r.frame(f, who))
			ss.withSeq = ss.n // told once a session
		case !e.HasSeq:
		case ss.n == 1 && e.Type == protocol.TypeSessionStarted && e.Seq != 0:
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s starts its session at sequence_number %d, not 0.", named(e), e.Seq), r.frame(f, who))
		case ss.n > 1 && e.Seq <= ss.seq:
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s follows sequence_number %d in its session: the numbers went back.", named(e), ss.seq), r.frame(f, who))
		case ss.n > 1 && strict && e.Seq != ss.seq+1:
			r.result(PEnvelopeRules, Fail, fmt.Sprintf("%s follows sequence_number %d in its session: it must rise by exactly one.", named(e), ss.seq), r.frame(f, who))
		}
		ss.seq = e.Seq
	}
	if n > 0 {
		r.result(PEnvelopeRules, Pass, fmt.Sprintf("%s kept the envelope rules: unique event_id, sequence_number, timestamps, aaep_version.", allOf(n, "event seen", "events seen")))
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, err1 := Canonical(json.RawMessage(a))
	cb, err2 := Canonical(json.RawMessage(b))
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}
