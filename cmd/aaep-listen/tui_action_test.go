package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/tui"
)

// actionRig is a listener holding confirmation 1, whose action reads
// "reject 2", and question 2, which asks "accept 1", both shown
// subscriber.Settle ago: a key on them applies as the number typed does.
func actionRig(t *testing.T) (*testRig, *sayLog, *replyLog) {
	t.Helper()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := newFakeClock(now)
	tio, _, _, _ := term.Test()
	o := &options{IO: tio, Verbosity: "normal", Now: clock.now}
	o.Sign.Off = true
	out := &sayLog{}
	l := newRig(t, o, out)
	conn := l.conn
	defer clock.add(subscriber.Settle)
	c := payPrompt(now, "evt_1", "a", "rpl_1")
	c.Action = "reject 2"
	q := &protocol.Event{Type: protocol.TypeAwaitingClarify, EventID: "evt_2", SessionID: "sess_2",
		Producer: protocol.Producer{AgentID: "quit"}, Urgency: protocol.UrgencyCritical, Question: "accept 1",
		AcceptedResponseKinds: []string{"freetext"}, ReplyToken: "rpl_2", TimeoutSeconds: 60, Timestamp: now}
	l.handle(c, q)
	if n := len(l.c.Pending()); n != 2 {
		t.Fatalf("%d prompts pending, want 2", n)
	}
	out.lines = nil
	return l, out, conn
}

// An action of the TUI and the line typed for it do the same thing: on two
// listeners holding the same prompts, each pair sends the same replies,
// says the same lines and quits alike. They meet in one function (do), so
// this holds by construction; the table shows it for every kind.
func TestTUIActionsAsLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		action tui.Action
		line   string
	}{
		{tui.Action{Kind: tui.ActionAccept, Prompt: 1}, "accept 1"},
		{tui.Action{Kind: tui.ActionReject, Prompt: 1}, "reject 1"},
		{tui.Action{Kind: tui.ActionAccept, Prompt: 9}, "accept 9"},
		{tui.Action{Kind: tui.ActionAnswer, Prompt: 2, Text: "blue"}, "answer 2 blue"},
		{tui.Action{Kind: tui.ActionAnswer, Prompt: 2, Text: "accept 1"}, "answer 2 accept 1"},
		{tui.Action{Kind: tui.ActionAnswer, Prompt: 1, Text: "yes"}, "answer 1 yes"},
		{tui.Action{Kind: tui.ActionSet, Term: "verbosity", Text: "loud"}, "set verbosity loud"},
		{tui.Action{Kind: tui.ActionStop}, "stop"},
		{tui.Action{Kind: tui.ActionQuit}, "quit"},
		{tui.Action{Kind: tui.ActionLine, Text: "details 2"}, "details 2"},
		{tui.Action{Kind: tui.ActionLine, Text: "pending"}, "pending"},
	} {
		t.Run(tt.line, func(t *testing.T) {
			la, outA, connA := actionRig(t)
			quitA := la.Do(t.Context(), tt.action.Command())
			la.drain()
			lb, outB, connB := actionRig(t)
			quitB := lb.command(t.Context(), tt.line)
			if quitA != quitB {
				t.Errorf("quit %v by the action, %v by the line", quitA, quitB)
			}
			if a, b := sentText(connA), sentText(connB); a != b {
				t.Errorf("the action sent\n%s\nthe line sent\n%s", a, b)
			}
			if a, b := strings.Join(outA.lines, "\n"), strings.Join(outB.lines, "\n"); a != b {
				t.Errorf("the action said\n%s\nthe line said\n%s", a, b)
			}
		})
	}
}

func sentText(c *replyLog) string {
	var b strings.Builder
	for _, m := range c.sent {
		b.Write(m)
		b.WriteByte('\n')
	}
	return b.String()
}

// Words of the producer's that read like commands never become one: the
// TUI answering question 2 with "accept 1" (its own question's words)
// sends that answer to question 2 and decides nothing about prompt 1.
func TestTUIAnswerReadingLikeACommand(t *testing.T) {
	t.Parallel()
	l, _, conn := actionRig(t)
	quit := l.Do(t.Context(), tui.Action{Kind: tui.ActionAnswer, Prompt: 2, Text: "accept 1"}.Command())
	l.drain()
	if quit {
		t.Fatal("the answer quit")
	}
	if len(conn.sent) != 1 {
		t.Fatalf("sent %d replies, want 1:\n%s", len(conn.sent), sentText(conn))
	}
	var r struct {
		Token    string `json:"reply_token"`
		Decision string `json:"decision"`
		Response string `json:"response"`
	}
	if err := json.Unmarshal(conn.sent[0], &r); err != nil {
		t.Fatal(err)
	}
	if r.Token != "rpl_2" || r.Decision != "" || r.Response != "accept 1" {
		t.Errorf("sent %s", conn.sent[0])
	}
	if n := len(l.c.Pending()); n != 1 || l.c.Pending()[0].Number != 1 {
		t.Errorf("prompt 1 no longer waits: %d pending", n)
	}
}

// An action of no kind answers nothing.
func TestTUINoAction(t *testing.T) {
	t.Parallel()
	l, _, conn := actionRig(t)
	if l.Do(t.Context(), tui.Action{}.Command()) || len(conn.sent) != 0 || len(l.c.Pending()) != 2 {
		t.Errorf("the empty action did something: sent %q", conn.sent)
	}
}
