package capture

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// While CheckSteps reads, the records' lines are copied one after another
// into shared blocks, each capped at its end; a line longer than a block
// is an allocation of its own. Every line and message
// is the file's, byte for byte, as in CheckAll's reading (no blocks).
func TestKeepLineBlocks(t *testing.T) {
	var in bytes.Buffer
	in.WriteString(`{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z"}` + "\n")
	var want []string
	for i := range 200 {
		pad := strings.Repeat("p", i%7*100)
		if i == 50 {
			pad = strings.Repeat("q", lineBlock) // longer than a block
		}
		line := fmt.Sprintf(`[%d.5,"i",{"type":"x","n":%d,"pad":"%s"}]`, i, i, pad)
		in.WriteString(line + "\n")
		want = append(want, line)
	}
	for _, share := range []bool{true, false} {
		r, err := NewReader(bytes.NewReader(in.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		r.late, r.shareLines = true, share
		shared := 0
		var prev []byte
		for i := 0; ; i++ {
			var rec Record
			if err := r.next(&rec); err != nil {
				if i != len(want) {
					t.Fatalf("share %v: %d records read, want %d (%v)", share, i, len(want), err)
				}
				break
			}
			if string(rec.line) != want[i] || !bytes.HasSuffix(rec.line, append(append([]byte(nil), rec.Msg...), ']')) {
				t.Fatalf("share %v: record %d is %q (message %q), want %q", share, i, rec.line, rec.Msg, want[i])
			}
			if cap(rec.line) != len(rec.line) || cap(rec.Msg) != len(rec.Msg) {
				t.Fatalf("share %v: record %d's line (or message) has room after it: appending to it would write over the next", share, i)
			}
			if prev != nil && uintptr(unsafe.Pointer(unsafe.SliceData(prev)))+uintptr(len(prev)) == uintptr(unsafe.Pointer(unsafe.SliceData(rec.line))) {
				shared++ // right after the line before, in the same block
				if share && (i == 50 || i == 51) {
					t.Fatalf("share %v: record %d shares a block with the one before", share, i)
				}
			}
			prev = rec.line
		}
		if share && shared < len(want)/2 {
			t.Errorf("only %d of %d lines follow the line before in its block", shared, len(want))
		}
	}
}

// What the checker keeps beyond a record's step is its own copy, never a
// string cut from a record's line, which would keep the line's whole
// block alive (Reader.keepLine): a session's ID, its outputs' IDs, its
// confirmations' actions, the violations it returns, and the unconfirmed
// tool calls of all but the last pinnedActions sessions given one. The
// capture's sessions each end with an unconfirmed tool call and never
// end, as a producer would write them to hold memory.
func TestCheckerKeepsNoLine(t *testing.T) {
	var in bytes.Buffer
	in.WriteString(`{"aaep_capture":1,"started_at":"2026-06-30T14:22:10Z"}` + "\n")
	const sessions = 3 * pinnedActions
	n := 0
	event := func(sess int, body string) {
		fmt.Fprintf(&in, `[%d.5,"i",{"@context":"https://aaep-protocol.org/context/v1",%s,"event_id":"evt_%d","session_id":"sess_%d","timestamp":"2026-06-30T14:22:11.342Z","producer":{"agent_id":"a"}}]`+"\n", n, body, n, sess)
		n++
	}
	for s := range sessions {
		event(s, `"type":"aaep:agent.state.changed","from_state":"thinking","to_state":"working"`)
		event(s, `"type":"aaep:agent.output.streaming","output_id":"out_x","position":0,"chunk":"Hi.","complete":false`)
		event(s, `"type":"aaep:agent.awaiting.confirmation","prompt":"Delete?","tool":"rm","tool_call_id":"call_c","risk_level":"low","reversible":true,"reply_token":"tok_1","timeout_seconds":30,"default_decision":"reject"`)
		event(s, `"type":"aaep:agent.tool.invoked","tool":"rm","tool_call_id":"call_c"`)
		event(s, `"type":"aaep:agent.tool.invoked","tool":"fetch","tool_call_id":"call_u"`)
	}
	r, err := NewReader(bytes.NewReader(in.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ from, to uintptr }
	var lines []span
	var kept []Violation
	err = c.CheckSteps(r, func(st *Step) {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(st.Record.line)))
		lines = append(lines, span{p, p + uintptr(len(st.Record.line))})
		kept = append(kept, st.Violations...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 5*sessions {
		t.Fatalf("%d records checked, want %d", len(lines), 5*sessions)
	}
	kept = append(kept, c.Finish()...)
	inLine := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		for _, l := range lines {
			if s != "" && p >= l.from && p < l.to {
				return true
			}
		}
		return false
	}
	check := func(what, s string) {
		t.Helper()
		if inLine(s) {
			t.Errorf("%s %q is cut from a record's line", what, s)
		}
	}
	if len(c.sessions) != sessions {
		t.Fatalf("%d sessions open, want %d", len(c.sessions), sessions)
	}
	pinned := map[*sessState]bool{}
	for _, p := range c.pins {
		pinned[p.s] = true
	}
	unconfirmed := 0
	for _, s := range c.sessions {
		check("a session's ID", s.id)
		for id := range s.outputs {
			check("an output's ID", id)
		}
		if len(s.confirms) != 1 {
			t.Fatalf("session %s has %d confirmations, want 1", s.id, len(s.confirms))
		}
		for _, conf := range s.confirms {
			check("a confirmation's session", conf.session)
			check("a confirmation's tool call", conf.names.toolCallID)
			check("a confirmation's tool", conf.names.tool)
		}
		if !s.unconfirmed.set || s.unconfirmed.tool != "fetch" {
			t.Fatalf("session %s's unconfirmed call is %+v, want fetch's", s.id, s.unconfirmed)
		}
		if inLine(s.unconfirmed.tool) || inLine(s.unconfirmed.toolCallID) {
			unconfirmed++
			if !pinned[s] {
				t.Errorf("session %s's unconfirmed call is cut from a line, and not among the last %d", s.id, pinnedActions)
			}
		}
	}
	if unconfirmed > pinnedActions {
		t.Errorf("%d unconfirmed calls are cut from lines, want at most %d", unconfirmed, pinnedActions)
	}
	if len(kept) < sessions {
		t.Fatalf("%d violations, want at least one a session (joined mid-way)", len(kept))
	}
	for _, v := range kept {
		check("a violation's session", v.Session)
		check("a violation's event ID", v.EventID)
		for _, p := range v.Pointers {
			check("a violation's pointer", p)
		}
	}
}
