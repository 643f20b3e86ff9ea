package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// replyLog is a transport that keeps what the listener sends; it can be
// made to fail, as a producer that went away.
// promptLog is an output that remembers the prompts settled without an
// answer (expired, withdrawn, settled elsewhere, stale) and those answered.
type promptLog struct {
	settled  map[int]string // by prompt number
	answered []int
}

func (o *promptLog) Announce(a announce.Announcement) error {
	switch a.Kind {
	case "prompt-expired", "prompt-cancelled", "prompt-resolved", "prompt-stale":
		o.settled[a.Prompt.Number] = a.Kind
	case "reply-sent":
		o.answered = append(o.answered, a.Prompt.Number)
	}
	return nil
}
func (o *promptLog) Diagnostic(session.Diagnostic) error { return nil }
func (o *promptLog) Say(time.Time, string) error         { return nil }
func (o *promptLog) Flush() error                        { return nil }

var fuzzCommands = []string{
	"accept", "reject", "accept 1", "reject 2", "a 3", "no 1", "accept always", "reject always 2",
	"accept always 1", "answer 1 yes", "answer 2 blue", "yes", "n", "pending", "details 1", "2", "blue", "help",
}

// FuzzDecisions drives the listener — session engine, policy and command
// layer — with any interleaving of prompts and other events, typed commands,
// clock jumps and transport failures. Whatever happens, a reply is sent only
// by a typed answer or by the policy in force (its decided_by says which),
// never twice for one reply token, and never for a prompt already settled.
func FuzzDecisions(f *testing.F) {
	f.Add([]byte{0, 0, 1, 3, 0, 4, 200, 0, 9, 3, 6, 2, 3, 4, 9, 3, 1})
	f.Add([]byte{1, 0, 3, 0, 7, 3, 2, 2, 0, 0, 3, 8})
	f.Add([]byte{2, 0, 17, 0, 1, 0, 17, 3, 6, 5, 0, 3, 0, 6, 0, 33, 3, 2})
	f.Add([]byte{3, 1, 4, 3, 9, 4, 255, 4, 255, 3, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 || len(ops) > 400 {
			return
		}
		clock := newFakeClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
		tio, _, _, _ := term.Test()
		o := &options{IO: tio, Verbosity: "normal", Now: clock.now, DecidedBy: "user:fuzz", ReorderWait: 50 * time.Millisecond}
		o.Sign.Off = true
		mode := ops[0] % 4
		switch mode {
		case 1:
			o.AutoReply = protocol.DecisionReject
		case 2, 3:
			p, err := policy.Parse([]byte(`{"rules":[{"name":"pay","tool":"transfer_*","decision":"reject"},
				{"name":"drafts","tool":"save_*","irreversible":false,"decision":"accept"},
				{"name":"ops","agent":"ops","label":"ops","decision":"accept","allow_irreversible_high":true}]}`))
			if err != nil {
				t.Fatal(err)
			}
			o.Decide.policy = p
		}
		out := &promptLog{settled: map[int]string{}}
		l := newRig(t, o, out)
		conn := l.conn
		var burst []*protocol.Event // events of a burst of frames not yet handed over
		handle := func(ev *protocol.Event) {
			if burst != nil {
				burst = append(burst, ev)
				return
			}
			l.handle(ev)
		}
		release := func() {
			if len(burst) > 0 {
				l.handle(burst...)
			}
			burst = nil
		}

		answered := map[string]bool{}
		check := func(before, answeredBefore int, typed bool) {
			for _, n := range out.answered[answeredBefore:] {
				if k, ok := out.settled[n]; ok {
					t.Fatalf("prompt %d answered after %s", n, k)
				}
			}
			sent := conn.sentSince(before)
			if typed && len(sent) > 1 {
				t.Fatalf("one command sent %d replies", len(sent))
			}
			for _, msg := range sent {
				var r struct {
					Token     string `json:"reply_token"`
					Decision  string `json:"decision"`
					DecidedBy string `json:"decided_by"`
				}
				if err := json.Unmarshal(msg, &r); err != nil {
					t.Fatalf("sent %q: %v", msg, err)
				}
				if answered[r.Token] {
					t.Fatalf("reply token %s answered twice", r.Token)
				}
				answered[r.Token] = true
				auto := strings.HasPrefix(r.DecidedBy, "auto:policy:") || r.DecidedBy == "auto:always" ||
					mode == 1 && r.Decision == protocol.DecisionReject
				switch {
				case typed && strings.HasPrefix(r.DecidedBy, "auto:policy:"):
					t.Fatalf("a typed answer sent as the policy's: %s", msg)
				case !typed && !auto:
					t.Fatalf("a reply sent with no command and no policy (mode %d): %s", mode, msg)
				case !typed && mode == 0 && r.DecidedBy != "auto:always":
					t.Fatalf("a reply sent by a policy that is not configured: %s", msg)
				}
			}
		}
		seq := map[string]int64{}
		tokens := 0
		for i := 1; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%6, ops[i+1]
			before, answeredBefore := conn.count(), len(out.answered)
			typed := false
			switch op {
			case 0, 1: // a prompt
				sess := fmt.Sprintf("sess_%d", arg%3)
				tokens++
				tok := fmt.Sprintf("rpl_%d", tokens)
				if arg&0x40 != 0 && tokens > 1 {
					tok = fmt.Sprintf("rpl_%d", tokens-1) // a producer reusing a token
				}
				ev := fuzzEvent(sess, &seq, arg, clock.now())
				ev.ReplyToken, ev.TimeoutSeconds = tok, int64(arg%90)+1
				if op == 0 {
					ev.Type, ev.Urgency = protocol.TypeAwaitingConfirmation, protocol.UrgencyCritical
					ev.Action, ev.Consequence, ev.DefaultDecision = "Do it.", "It is done.", protocol.DecisionReject
					irr := arg&0x8 != 0
					ev.Irreversible, ev.RiskLevel = &irr, []string{"low", "medium", "high", ""}[arg>>4&3]
					ev.Tool = []string{"", "transfer_money", "save_draft", "delete"}[arg>>2&3]
				} else {
					ev.Type, ev.Question = protocol.TypeAwaitingClarify, "Which?"
					ev.AcceptedResponseKinds = []string{"yes_no", "freetext"}
				}
				if arg&0x80 != 0 {
					ev.Producer.AgentID = "ops"
				}
				handle(ev)
			case 2: // another event of a session
				ev := fuzzEvent(fmt.Sprintf("sess_%d", arg%3), &seq, arg, clock.now())
				switch arg >> 2 % 5 {
				case 0:
					ev.Type, ev.FromState, ev.ToState = protocol.TypeStateChanged, "awaiting_input", "calling_tool"
				case 1:
					ev.Type, ev.FromState, ev.ToState = protocol.TypeStateChanged, "awaiting_input", "thinking"
				case 2:
					ev.Type, ev.Urgency = protocol.TypeSessionCancelled, protocol.UrgencyCritical
				case 3:
					yes := true
					ev.Type, ev.Tool, ev.RiskLevel, ev.Irreversible = protocol.TypeToolInvoked, "delete", "high", &yes
				default:
					ev.Type = protocol.TypeProgressUpdated
				}
				handle(ev)
			case 3: // a typed command, read between bursts
				release() // may let the policy answer held prompts
				check(before, answeredBefore, false)
				before, answeredBefore = conn.count(), len(out.answered)
				typed = true
				l.command(context.Background(), fuzzCommands[int(arg)%len(fuzzCommands)])
			case 4: // the clock jumps
				release()
				clock.add(time.Duration(arg) * 500 * time.Millisecond)
				l.sync()
			case 5: // the transport fails or recovers; a burst of frames begins or ends
				conn.setDown(arg&1 == 1)
				if arg&2 != 0 {
					if burst == nil {
						burst = []*protocol.Event{}
					}
				} else {
					release()
				}
			}
			check(before, answeredBefore, typed)
		}
	})
}

// fuzzEvent is an event of session sess, numbered in order unless arg asks
// for an old number (a replayed event).
func fuzzEvent(sess string, seq *map[string]int64, arg byte, now time.Time) *protocol.Event {
	m := *seq
	n := m[sess]
	if arg&0x20 != 0 && n > 2 {
		n -= 2 // replayed history
	} else {
		m[sess] = n + 1
	}
	return &protocol.Event{SessionID: sess, Seq: n, HasSeq: true, Timestamp: now, Urgency: protocol.UrgencyNormal,
		EventID: fmt.Sprintf("evt_%s_%d_%d", sess, n, arg), Producer: protocol.Producer{AgentID: "agent"}}
}
