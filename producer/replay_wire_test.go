package producer

import (
	"testing"
	"time"
)

// A served capture is its recorded bytes: only the top-level timestamp
// (restamped) and, from a loop's second round on, the IDs change, in
// place; members keep their order and nested look-alikes are left alone.
func TestRecordedBytesSpliced(t *testing.T) {
	msg := []byte(`{"type":"aaep:agent.awaiting.confirmation","extensions":{"x":{"timestamp":"old","event_id":"evt_in"}},` +
		`"timestamp":"2020-01-01T00:00:00Z","event_id":"evt_a","session_id":"sess_s","reply_token":"rpl_t","urgency":"normal"}`)
	m := readMeta(msg)
	st := &stamper{now: func() time.Time { return time.Date(2026, 11, 29, 1, 2, 3, 4e6, time.UTC) }}
	for _, tc := range []struct {
		round int
		keep  bool
		want  string
	}{
		{1, true, string(msg)},
		{1, false, `{"type":"aaep:agent.awaiting.confirmation","extensions":{"x":{"timestamp":"old","event_id":"evt_in"}},` +
			`"timestamp":"2026-11-29T01:02:03.004Z","event_id":"evt_a","session_id":"sess_s","reply_token":"rpl_t","urgency":"normal"}`},
		{2, true, `{"type":"aaep:agent.awaiting.confirmation","extensions":{"x":{"timestamp":"old","event_id":"evt_in"}},` +
			`"timestamp":"2020-01-01T00:00:00Z","event_id":"evt_ar2","session_id":"sess_sr2","reply_token":"rpl_tr2","urgency":"normal"}`},
	} {
		rec := m.send(msg, tc.round, tc.keep, st)
		if string(rec.data) != tc.want {
			t.Errorf("round %d keep %v:\n got %s\nwant %s", tc.round, tc.keep, rec.data, tc.want)
		}
		if !rec.critical || rec.typ != "aaep:agent.awaiting.confirmation" {
			t.Errorf("round %d: %+v", tc.round, rec)
		}
		if wantID := map[int]string{1: "evt_a", 2: "evt_ar2"}[tc.round]; rec.id != wantID {
			t.Errorf("round %d: id %q, want %q", tc.round, rec.id, wantID)
		}
	}
}
