package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
	"github.com/aaep-term/aaep-term/protocol"
)

// The suite's scripted producer passes the checks it holds producers to:
// a session played to a conforming subscriber at each level (at Level 1
// without a handshake: no prompt is left waiting, every tool completes), recorded as a capture from
// the subscriber's side, passes aaep-replay check (our schemas and the
// sequencing rules) with neither violation nor warning; every session is
// numbered from 0 on agent.session.started (§3.4.1) and every timestamp
// has three fractional digits (§3.2.5). The two frames the stage sends
// on purpose as a network would — a copy of an event and two events the
// other way round — are recorded as the producer emitted them: once, in
// order.
func TestStagePassesCheck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  string
		level Level
	}{{"l1-bare", 1}, {"honest", 2}, {"honest", 3}} {
		t.Run(fmt.Sprintf("level %d", tc.level), func(t *testing.T) {
			t.Parallel()
			checkStage(t, tc.mode, tc.level)
		})
	}
}

// checkStage plays the session at level to the mutant of mode and checks
// what the stage sent.
func checkStage(t *testing.T, mode string, level Level) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := TestSubscriber(ctx, SubscriberOptions{Level: level, Exec: fakeCommand(mode), Window: time.Second, Patience: 5 * time.Second,
		Only: []string{idSubConnect}})
	if err != nil {
		t.Fatal(err)
	}
	type record struct {
		at    float64
		dir   capture.Dir
		frame json.RawMessage
		id    string
	}
	var records []record
	var events []json.RawMessage
	seen := map[string]bool{}
	for _, e := range rep.Results[0].Evidence {
		if e.Frame == nil {
			continue
		}
		r := record{at: e.At.Seconds(), dir: capture.Out, frame: e.Frame}
		if e.Dir == "sent" {
			if protocol.PeekType(e.Frame) == "" {
				continue // the HTTP answer to a reply, no AAEP message
			}
			r.dir, r.id = capture.In, eventID(e.Frame)
			if seen[r.id] && r.id != "" {
				continue // the copy a network would make
			}
			seen[r.id] = true
		}
		// the two a network swapped, back in the order emitted: an event
		// goes before the first of its session numbered after it
		at := len(records)
		for j := len(records) - 1; j >= 0 && r.id != ""; j-- {
			if records[j].id != "" && emitted(records[j].frame).after(emitted(r.frame)) {
				at = j
			}
		}
		records = slices.Insert(records, at, r)
	}
	var rec bytes.Buffer
	rec.WriteString(`{"aaep_capture":1,"started_at":"2026-01-01T00:00:00Z","transport":"sse","redacted":false}` + "\n")
	for _, r := range records {
		line, _ := json.Marshal([]any{r.at, r.dir, r.frame})
		rec.Write(append(line, '\n'))
		if r.id != "" {
			events = append(events, r.frame)
		}
	}
	if len(events) < 20 {
		t.Fatalf("only %d events recorded", len(events))
	}
	r, err := capture.NewReader(&rec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := capture.NewChecker(capture.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckAll(r, func(st capture.Step) {
		for _, v := range st.Violations {
			t.Errorf("%s", v)
		}
	}); err != nil {
		t.Fatal(err)
	}
	digits := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	first := map[string]bool{}
	for _, ev := range events {
		var e struct {
			Type      string `json:"type"`
			Session   string `json:"session_id"`
			Seq       int    `json:"sequence_number"`
			Timestamp string `json:"timestamp"`
		}
		json.Unmarshal(ev, &e) //nolint:errcheck // checked above
		if !digits.MatchString(e.Timestamp) {
			t.Errorf("timestamp %q has not three fractional digits", e.Timestamp)
		}
		if e.Type == protocol.TypeSessionStarted && e.Seq != 0 {
			t.Errorf("session %s starts at sequence_number %d, not 0", e.Session, e.Seq)
		}
		first[e.Session] = true
	}
	if len(first) != 3 {
		t.Errorf("%d sessions, want 3", len(first))
	}
}

// eventID is the event_id of an event frame, "" for any other message.
func eventID(frame json.RawMessage) string {
	var e struct {
		ID string `json:"event_id"`
	}
	json.Unmarshal(frame, &e) //nolint:errcheck // not an event
	return e.ID
}

// emitted orders events as their producer emitted them: by session and
// sequence_number within it (sessions in the order they started).
type emittedAt struct {
	session string
	seq     int
}

func emitted(frame json.RawMessage) emittedAt {
	var e struct {
		Session string `json:"session_id"`
		Seq     int    `json:"sequence_number"`
	}
	json.Unmarshal(frame, &e) //nolint:errcheck // an event
	return emittedAt{e.Session, e.Seq}
}

// after reports whether a was emitted after b in the same session.
func (a emittedAt) after(b emittedAt) bool { return a.session == b.session && a.seq > b.seq }

// What a subscriber writes is kept up to maxSaid bytes, and a word split
// across two writes is found.
func TestStageOutputBounded(t *testing.T) {
	t.Parallel()
	st, err := newStage("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	ctx := context.Background()
	st.Write([]byte("a line, then ZWO")) //nolint:errcheck // never fails
	if st.announced(ctx, "ZWORD07", 0) {
		t.Fatal("found a word not yet written")
	}
	st.Write([]byte("RD07 and more\n")) //nolint:errcheck // never fails
	if !st.announced(ctx, "ZWORD07", 0) {
		t.Fatal("a word split across two writes is not found")
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	for range 2 * maxSaid / len(chunk) {
		st.Write(chunk) //nolint:errcheck // never fails
	}
	st.Write([]byte("ZLATE01")) //nolint:errcheck // never fails
	if n := len(st.output()); n != maxSaid {
		t.Errorf("kept %d bytes, want %d", n, maxSaid)
	}
	if st.announced(ctx, "ZLATE01", 0) {
		t.Error("found a word written beyond what is kept")
	}
}
