package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/tui"
)

// This file holds the tests of issue 23's answers bound to what they
// answer: the kind of prompt, its producer, its words, and that the user
// had time to hear it (subscriber.Answer).

// question sends a yes-or-no question from agent in sess; it returns the
// reply token.
func (r *gateRig) question(agent, sess, q string) string {
	tok := ""
	r.event(agent, sess, func(ev *protocol.Event) {
		tok = "rpl_q" + ev.EventID
		ev.Type, ev.Urgency, ev.Question = protocol.TypeAwaitingClarify, protocol.UrgencyCritical, protocol.Text(q)
		ev.AcceptedResponseKinds, ev.ReplyToken, ev.TimeoutSeconds = []string{"yes_no"}, tok, 60
	})
	return tok
}

// answerSent is the answer sent for token (a clarification reply), or "".
func (r *gateRig) answerSent(token string) string {
	for _, msg := range r.conn.sent {
		var m struct {
			Token    string          `json:"reply_token"`
			Response json.RawMessage `json:"response"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			r.t.Fatalf("sent %q: %v", msg, err)
		}
		if m.Token == token {
			return string(m.Response)
		}
	}
	return ""
}

// wire9000 makes a confirmation the irreversible high-risk WIRE $9,000.
func wire9000(ev *protocol.Event) {
	yes := true
	ev.Action, ev.RiskLevel, ev.Irreversible = "WIRE $9,000 to an account abroad.", "high", &yes
}

// An answer word fits one kind of prompt: typed while a question waits
// beside a confirmation (the same agent's or another's), "yes", "y", "a"
// and "accept" accept nothing; the user hears which prompts wait, each
// with its agent, number, kind and the command that answers it. Named by
// number, "accept" reaches no question and "answer" no confirmation;
// "yes N" answers question N.
func TestAnswerWordFitsOneKind(t *testing.T) {
	for _, tc := range []struct {
		name     string
		qAgent   string // the question's agent; the confirmation is bank's
		typed    string
		accepted bool   // the confirmation (prompt 1) is accepted
		answer   string // the question's (prompt 2) answer sent, "" when none
		says     []string
	}{
		{"yes, another agent's question", "helper", "yes", false, "", []string{"prompt 1 from bank, a confirmation", "accept 1", "prompt 2 from helper, a question", "answer 2"}},
		{"y, another agent's question", "helper", "y", false, "", []string{"nothing was sent", "answer 2"}},
		{"a, another agent's question", "helper", "a", false, "", []string{"nothing was sent", "answer 2"}},
		{"accept, another agent's question", "helper", "accept", false, "", []string{"nothing was sent"}},
		{"yes, the same agent's question", "bank", "yes", false, "", []string{"nothing was sent", "accept 1", "answer 2"}},
		{"a line of text", "helper", "go ahead", false, "", []string{"nothing was sent"}},
		{"accept naming the question", "helper", "accept 2", false, "", []string{"Prompt 2 from helper is a question, not a confirmation; nothing was sent", "accept 1"}},
		{"answer naming the confirmation", "helper", "answer 1 yes", false, "", []string{"Prompt 1 from bank is a confirmation, not a question; nothing was sent"}},
		{"yes naming the question", "helper", "yes 2", false, `"yes"`, nil},
		{"accept naming the confirmation", "helper", "accept 1", true, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRig(t, "")
			pay := r.confirm("bank", "sess_pay", "transfer_money", wire9000)
			q := r.question(tc.qAgent, "sess_q", "Shall I go on?")
			r.advance(10 * time.Second)
			r.command(tc.typed)
			r.l.sure() // the payment cannot be undone: the second step
			d, _ := r.decision(pay)
			if (d == protocol.DecisionAccept) != tc.accepted {
				t.Errorf("typed %q: the confirmation got %q\n%s", tc.typed, d, r.out.all())
			}
			if got := r.answerSent(q); got != tc.answer {
				t.Errorf("typed %q: the question got %s, want %q\n%s", tc.typed, got, tc.answer, r.out.all())
			}
			for _, w := range tc.says {
				if !strings.Contains(r.out.all(), w) {
					t.Errorf("typed %q: nothing says %q:\n%s", tc.typed, w, r.out.all())
				}
			}
		})
	}
}

// Bait and switch: a producer withdraws the prompt the user heard and asks
// an irreversible one just before the user's answer. A bare accept 0.15 s
// later, or a key on the prompt on screen, answers nothing: the new prompt
// is said again, with what it asks. Once the user had time to hear it, it
// can be answered.
func TestBareAnswerIsNotSwitched(t *testing.T) {
	for _, tc := range []struct {
		name    string
		earlier bool             // the new prompt was asked before the old one was withdrawn
		answer  func(r *gateRig) // the user's answer 0.15 s after the switch
		says    string
	}{
		{"typed accept", false, func(r *gateRig) { r.command("accept") }, "Prompt 2 was asked moments ago; nothing was sent"},
		{"typed yes", false, func(r *gateRig) { r.command("yes") }, "Prompt 2 was asked moments ago; nothing was sent"},
		{"typed accept, the new prompt asked earlier", true, func(r *gateRig) { r.command("accept") }, "The prompts waiting changed moments ago; nothing was sent"},
		{"TUI key", false, func(r *gateRig) {
			p := r.l.c.Pending()[0]
			r.l.Do(context.Background(), tui.Action{Kind: tui.ActionAccept, Prompt: p.Number, Words: p.Digest(), Shown: r.clock()}.Command())
			r.l.drain()
		}, "Prompt 2 was asked moments ago; nothing was sent"},
		{"TUI key, the words on screen another prompt's", true, func(r *gateRig) {
			r.advance(5 * time.Second)
			r.l.Do(context.Background(), tui.Action{Kind: tui.ActionAccept, Prompt: 2, Words: "digest of prompt 1", Shown: r.clock().Add(-time.Minute)}.Command())
			r.l.drain()
		}, "Prompt 2 is not the prompt you were shown; nothing was sent"},
		{"braille routing key", false, func(r *gateRig) {
			r.l.Do(context.Background(), tui.Action{Kind: tui.ActionAccept, Prompt: 2}.Command())
			r.l.drain()
		}, "Prompt 2 was asked moments ago; nothing was sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRig(t, "")
			r.confirm("bank", "sess_1", "save_draft", lowReversible)
			r.advance(10 * time.Second)
			var wire string
			if tc.earlier {
				wire = r.confirm("bank", "sess_2", "transfer_money", wire9000)
				r.advance(10 * time.Second)
			}
			r.event("bank", "sess_1", func(ev *protocol.Event) { // prompt 1 withdrawn
				ev.Type, ev.FromState, ev.ToState = protocol.TypeStateChanged, "awaiting_input", "thinking"
			})
			if !tc.earlier {
				wire = r.confirm("bank", "sess_1", "transfer_money", wire9000)
			}
			r.advance(150 * time.Millisecond)
			tc.answer(r)
			r.l.sure()
			if d, _ := r.decision(wire); d != "" {
				t.Fatalf("the switched prompt got %q 0.15 s after the switch\n%s", d, r.out.all())
			}
			if all := r.out.all(); !strings.Contains(all, tc.says) || !strings.Contains(all, "WIRE $9,000") {
				t.Fatalf("the switched prompt was not said again (%q):\n%s", tc.says, all)
			}
			r.advance(subscriber.Settle)
			r.command("accept 2")
			r.l.sure()
			if d, _ := r.decision(wire); d != protocol.DecisionAccept {
				t.Fatalf("heard and named, prompt 2 got %q\n%s", d, r.out.all())
			}
		})
	}
}
