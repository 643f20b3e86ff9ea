package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// A burst of replayed history that holds a prompt and the event settling it
// never offers the prompt; a prompt still waiting at the burst's end is
// offered, and answered by the policy then.
func TestBurstHoldsSettledPrompts(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	confirm := func(id, tok string) *protocol.Event { return payPrompt(now, id, "a", tok) }
	moved := &protocol.Event{Type: protocol.TypeStateChanged, EventID: "evt_moved", SessionID: "sess_evt_1",
		Producer: protocol.Producer{AgentID: "a"}, FromState: "awaiting_input", ToState: "calling_tool",
		SummaryNormal: "You accepted; paying.", Timestamp: now}

	for _, autoReject := range []bool{false, true} {
		l, out, conn := testListener(now, autoReject)

		l.holdPrompts()
		l.handle(decoded{ev: confirm("evt_1", "rpl_1")}) // answered before we joined
		l.handle(decoded{ev: moved})
		l.handle(decoded{ev: confirm("evt_2", "rpl_2")}) // still waiting
		if len(conn.sent) != 0 {
			t.Fatalf("a held prompt was answered during the burst")
		}
		for _, s := range out.lines {
			if strings.Contains(s, "Confirmation needed") {
				t.Fatalf("a prompt was offered before the burst ended: %q", s)
			}
		}
		l.releasePrompts()
		text := strings.Join(out.lines, "\n")
		for _, want := range []string{
			"An earlier prompt is already settled and cannot be answered: Pay evt_1.",
			"Confirmation needed, prompt 2: Pay evt_2.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("auto-reject %v: output lacks %q:\n%s", autoReject, want, text)
			}
		}
		if strings.Contains(text, "Confirmation needed, prompt 1") {
			t.Errorf("the settled prompt was offered:\n%s", text)
		}
		if want := map[bool]int{false: 0, true: 1}[autoReject]; len(conn.sent) != want ||
			want == 1 && !strings.Contains(string(conn.sent[0]), `"reply_token":"rpl_2"`) {
			t.Errorf("auto-reject %v: sent %q", autoReject, conn.sent)
		}
	}
}

// payPrompt is confirmation id of agent, "Pay id.", with reply token tok.
func payPrompt(now time.Time, id, agent, tok string) *protocol.Event {
	return &protocol.Event{Type: protocol.TypeAwaitingConfirmation, EventID: id, SessionID: "sess_" + id,
		Producer: protocol.Producer{AgentID: agent}, Urgency: protocol.UrgencyCritical, Action: protocol.Text("Pay " + id + "."),
		Consequence: "Paid.", ReplyToken: tok, TimeoutSeconds: 60, DefaultDecision: "reject", Timestamp: now}
}

// testListener is a listener without a connection of its own: what it says
// goes to out, what it sends to conn. autoReject turns --auto-reply reject on.
func testListener(now time.Time, autoReject bool) (*listener, *sayLog, *replyLog) {
	tio, _, _, _ := term.Test()
	o := &options{IO: tio, Verbosity: "normal", Now: func() time.Time { return now }}
	o.Sign.Off = true
	if autoReject {
		o.AutoReply = protocol.DecisionReject
	}
	out, conn := &sayLog{}, &replyLog{}
	l := &listener{o: o, out: out, notes: make(chan note, 64), conn: conn}
	l.ann = announce.New(announce.Config{}, out)
	l.eng = session.New(session.Config{}, l)
	return l, out, conn
}

// inOrder returns the first of want that text lacks, or has only before
// the one ahead of it; "" when text has them all in order.
func inOrder(text string, want []string) string {
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			return w
		}
		at += i + len(w)
	}
	return ""
}
