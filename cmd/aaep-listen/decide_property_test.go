package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// propertyPolicy is the policy file of the property test; consentRule is
// its independent reading, rule by rule, in the order the file gives them.
const propertyPolicy = `{"rules":[
  {"name":"pay","tool":"transfer_*","decision":"reject"},
  {"name":"drafts","tool":"save_*","irreversible":false,"decision":"accept"},
  {"name":"low","risk":["low"],"decision":"accept"},
  {"name":"ops","agent":"ops","label":"ops","decision":"accept","allow_irreversible_high":true},
  {"name":"mail","tool":"send_*","decision":"ask"}
]}`

// oracleIrreversible is the test's own reading of whether a prompt cannot
// be undone, from the user's promise: it says so anywhere, its two fields
// disagree (or one comes twice in what the producer sent), it gives an
// unknown value, or it says nothing.
func oracleIrreversible(ev *protocol.Event) bool {
	if bytes.Count(ev.Raw, []byte(`"irreversible":`)) > 1 || bytes.Count(ev.Raw, []byte(`"reversibility":`)) > 1 {
		return true
	}
	switch ev.Reversibility {
	case "irreversible":
		return true
	case "", "reversible", "reversible_with_effort":
	default:
		return true
	}
	if ev.Irreversible != nil {
		return *ev.Irreversible
	}
	return ev.Reversibility == ""
}

// oracleRisk orders risk levels; anything else counts as the highest.
func oracleRisk(ev *protocol.Event) int {
	switch ev.RiskLevel {
	case "low":
		return 1
	case "medium":
		return 2
	case "high":
		return 3
	}
	return 4
}

func oracleHighStakes(ev *protocol.Event) bool { return oracleIrreversible(ev) && oracleRisk(ev) >= 3 }

// consentRule returns the name of the rule of propertyPolicy that accepts
// p, from the agent the user labelled label, or "" when the first rule that
// matches it does not accept. A producer saying its agent_id is "ops" gets
// the ops rule only where the user labelled it ops.
func consentRule(p *session.Prompt, label string) string {
	ev := p.Event
	globbed := func(pattern string) bool { ok, _ := path.Match(pattern, p.Tool); return ok && p.Tool != "" }
	switch {
	case globbed("transfer_*"):
		return ""
	case globbed("save_*") && !oracleIrreversible(ev):
		return "drafts"
	case ev.RiskLevel == "low":
		return "low"
	case ev.Producer.AgentID == "ops" && label == "ops":
		return "ops"
	}
	return ""
}

// TestNoAcceptWithoutConsent drives random prompt streams through the real
// listener (session engine, announcer, typed commands, decision gate):
// agents reusing session ids, tools, risk levels, contradictory
// reversibility, reused reply tokens, "accept always" typed at random
// points, expiry, questions asked beside confirmations, prompts withdrawn
// and replaced by riskier ones just before the user types, and a relaying
// agent that asks something harmless under another agent's reply token
// (issue 23 item 1's attack, within one listener), and a scripted ACP
// agent behind the bridge whose eight permission requests (hostile titles,
// options of every shape) wait among them; it must get allow_once only for
// an accept this property lets through, never allow_always. No accept may
// leave without a typed accept for that very prompt (a bare one only when
// that prompt, a confirmation, was the only one waiting, shown
// subscriber.Settle ago or more, with the prompts waiting unchanged as
// long), an "accept always" the user typed for a prompt of the same agent,
// session and tool that was no less risky (and never for a high-stakes
// one), or a rule of the policy file that accepts that prompt.
func TestNoAcceptWithoutConsent(t *testing.T) {
	t.Parallel()
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { t.Parallel(); consentRun(t, seed, 400, true) })
	}
}

// FuzzConsent runs TestNoAcceptWithoutConsent's stream from any seed.
func FuzzConsent(f *testing.F) {
	f.Add(uint64(13))
	f.Add(uint64(1 << 40))
	f.Fuzz(func(t *testing.T, seed uint64) { consentRun(t, seed, 300, false) })
}

// alwaysModel is the test's memory of "accept always" answers.
type alwaysModel struct{ agent, session, tool string }

// consentRun plays seed's stream for steps; withACP adds the scripted ACP
// agent (a process per run: too slow for fuzzing).
func consentRun(t *testing.T, seed uint64, steps int, withACP bool) {
	rng := rand.New(rand.NewPCG(seed, seed*7919))
	mode := seed % 3 // 0: nothing configured, 1: the policy file, 2: --auto-reply reject
	policyFile := ""
	if mode == 1 {
		policyFile = propertyPolicy
	}
	// The agent as the user configured it: no label, the label the ops
	// rule names, or another label, under which any producer may say it is ops.
	label := []string{"", "ops", "mail"}[seed/3%3]
	r := newGateRigAs(t, label, policyFile, mode == 2)
	r.wire = true
	// A scripted ACP agent, its permission requests waiting beside the
	// others' prompts from the start (consent_acp_test.go).
	var acpAgent *acpConsent
	if withACP {
		acpAgent = joinACP(t, r, seed)
	}
	consented := map[string]*session.Prompt{} // the accepts the property let through, by reply token
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	always := map[alwaysModel]*protocol.Event{} // accept always answers and the prompt answered
	var tokens []string
	tokenOf := map[string]string{} // each reply token → the agent that first asked under it
	answered := map[string]bool{}  // the tokens a reply was sent for
	var trace []string
	shownAt := map[int]time.Time{} // when each prompt was first seen waiting
	var changed time.Time          // when the prompts waiting last changed without the user
	last := map[int]string{}       // the prompts waiting at the last step, with their tokens
	watch := func() {              // the test's own record of what the user was shown, and when
		now := map[int]string{}
		for _, p := range pendingWith(r, acpAgent) {
			now[p.Number] = p.Event.ReplyToken
			if _, ok := shownAt[p.Number]; !ok {
				shownAt[p.Number], changed = r.clock(), r.clock()
			}
		}
		for n, tok := range last {
			if _, ok := now[n]; !ok && r.answerSent(tok) == "" && !acpAgent.answered(tok) {
				if d, _ := r.decision(tok); d == "" {
					changed = r.clock() // withdrawn, expired: not the user's doing
				}
			}
		}
		last = now
	}
	checked := 0
	check := func(typedFor int) {
		anns := r.out.anns[checked:]
		checked = len(r.out.anns)
		for _, a := range anns {
			if a.Kind != "reply-sent" || a.Prompt == nil {
				continue
			}
			var m struct {
				Decision  string `json:"decision"`
				DecidedBy string `json:"decided_by"`
				Token     string `json:"reply_token"`
			}
			if err := json.Unmarshal(a.Reply, &m); err != nil {
				t.Fatalf("reply %q: %v", a.Reply, err)
			}
			p := a.Prompt
			if m.Token != p.Event.ReplyToken {
				t.Fatalf("the reply to prompt %d carries token %s, not its own %s", p.Number, m.Token, p.Event.ReplyToken)
			}
			if answered[m.Token] {
				// A token spent already: a relaying agent's copy, or the
				// producer reusing it. No second answer leaves for it.
				t.Fatalf("seed %d: a second reply for token %s (first asked by %s), to prompt %d of %s\n%s",
					seed, m.Token, tokenOf[m.Token], p.Number, p.Event.Producer.AgentID, strings.Join(trace, "\n"))
			}
			answered[m.Token] = true
			if m.Decision != protocol.DecisionAccept {
				continue
			}
			// A reused token: the producer may apply this accept to the
			// other prompt, so the engine offers neither of the two.
			for _, q := range r.l.c.Pending() {
				if q.Number != p.Number && q.Event.ReplyToken == m.Token {
					t.Fatalf("seed %d: the accept of prompt %d carries the token of prompt %d, still pending", seed, p.Number, q.Number)
				}
			}
			key := alwaysModel{p.Event.Producer.AgentID, p.Event.SessionID, p.Tool}
			answered := always[key]
			switch {
			case m.DecidedBy == "" && typedFor == p.Number:
			case m.DecidedBy == "auto:always" && answered != nil && !oracleHighStakes(p.Event) &&
				oracleRisk(p.Event) <= oracleRisk(answered) && (!oracleIrreversible(p.Event) || oracleIrreversible(answered)):
			case strings.HasPrefix(m.DecidedBy, "auto:policy:") && mode == 1 && m.DecidedBy == "auto:policy:"+consentRule(p, label):
			default:
				t.Fatalf("seed %d: prompt %d (agent %s labelled %q, session %s, tool %q) accepted by %q without consent (typed for %d): %s\n%s",
					seed, p.Number, key.agent, label, key.session, p.Tool, m.DecidedBy, typedFor, p.Event.Raw, strings.Join(trace, "\n"))
			}
			consented[m.Token] = p
		}
		for _, msg := range append(r.conn.sent, acpAgent.replies()...) {
			if !bytes.Contains(msg, []byte(`"decision":"accept"`)) {
				continue
			}
			found := false
			for _, a := range r.out.anns {
				found = found || a.Kind == "reply-sent" && bytes.Equal(a.Reply, msg)
			}
			if !found {
				t.Fatalf("seed %d: an accept left without being announced: %s", seed, msg)
			}
		}
	}
	for range steps {
		typedFor := 0
		watch()
		switch op := rng.IntN(14); {
		case op < 4: // a confirmation
			agent, sess := pick("drafter", "intruder", "ops"), pick("sess_1", "sess_2")
			tool := pick("", "save_draft", "transfer_money", "delete", "send_mail")
			risk := pick("low", "medium", "high", "", "extreme")
			rev := pick("", "", "reversible", "reversible_with_effort", "irreversible", "mostly")
			flag := rng.IntN(3)
			r.dupUndo = rng.IntN(6) == 0
			tok := r.confirm(agent, sess, tool, func(ev *protocol.Event) {
				ev.RiskLevel, ev.Reversibility = risk, rev
				if flag > 0 {
					yes := flag == 1
					ev.Irreversible = &yes
				}
				if len(tokens) > 0 && rng.IntN(8) == 0 {
					ev.ReplyToken = tokens[rng.IntN(len(tokens))] // a producer reusing a token
				}
			})
			tokens = append(tokens, tok)
			if tokenOf[tok] == "" {
				tokenOf[tok] = agent
			}
			trace = append(trace, fmt.Sprintf("confirm %s %s %q risk=%q rev=%q flag=%d twice=%v", agent, sess, tool, risk, rev, flag, r.dupUndo))
			r.dupUndo = false
		case op == 4: // a tool call, naming the tool of the next prompt
			agent, sess := pick("drafter", "intruder", "ops"), pick("sess_1", "sess_2")
			tool := pick("save_draft", "transfer_money", "delete")
			r.event(agent, sess, func(ev *protocol.Event) {
				ev.Type, ev.Tool, ev.RiskLevel = protocol.TypeToolInvoked, tool, pick("low", "high")
			})
			trace = append(trace, fmt.Sprintf("tool.invoked %s %s %s", agent, sess, tool))
		case op == 5: // the agent moves on
			agent, sess := pick("drafter", "intruder", "ops"), pick("sess_1", "sess_2")
			r.event(agent, sess, func(ev *protocol.Event) {
				ev.Type, ev.FromState, ev.ToState = protocol.TypeStateChanged, "awaiting_input", pick("thinking", "calling_tool")
			})
			trace = append(trace, fmt.Sprintf("state.changed %s %s", agent, sess))
		case op < 9: // the user types
			pending := pendingWith(r, acpAgent)
			n := 0
			if len(pending) > 0 && rng.IntN(4) > 0 {
				n = pending[rng.IntN(len(pending))].Number
			} else {
				n = rng.IntN(r.n + 2)
			}
			verb := pick("accept", "accept always", "reject", "reject always", "a", "yes")
			cmd := verb // a third of the time bare: no number typed
			if rng.IntN(3) > 0 {
				cmd = fmt.Sprintf("%s %d", verb, n)
			}
			var target *session.Prompt
			var confirms []*session.Prompt
			for _, p := range pending {
				if p.Event.Type == protocol.TypeAwaitingConfirmation {
					confirms = append(confirms, p)
				}
				if p.Number == n && cmd != verb {
					target = p
				}
			}
			heard := func(p *session.Prompt) bool {
				return r.clock().Sub(shownAt[p.Number]) >= subscriber.Settle && r.clock().Sub(changed) >= subscriber.Settle
			}
			if cmd == verb && len(pending) == 1 && len(confirms) == 1 && heard(confirms[0]) {
				target = confirms[0] // a bare accept: the only prompt, heard
			}
			if target != nil && !strings.HasPrefix(verb, "r") {
				typedFor = target.Number
			}
			if target != nil && strings.HasSuffix(verb, "always") && target.Tool != "" {
				key := alwaysModel{target.Event.Producer.AgentID, target.Event.SessionID, target.Tool}
				switch {
				case verb == "reject always":
					delete(always, key)
				case !oracleHighStakes(target.Event):
					always[key] = target.Event
				} // an "accept always" refused leaves the earlier answer as it was
			}
			trace = append(trace, "typed "+cmd)
			r.command(cmd)
			if r.l.Held() { // the second step of an accept that cannot be undone: the same consent
				trace = append(trace, "typed yes (the second step)")
				r.l.sure()
			}
		case op == 9: // the clock moves on
			r.advance(time.Duration(rng.IntN(40)) * time.Second)
			trace = append(trace, "tick")
		case op == 10: // a question beside the confirmations
			agent, sess := pick("drafter", "intruder", "ops", "relay"), pick("sess_1", "sess_2", "sess_q")
			r.question(agent, sess, "Shall I go on?")
			trace = append(trace, fmt.Sprintf("question %s %s", agent, sess))
		case op == 11: // bait and switch: the prompt withdrawn, a riskier one asked
			agent, sess := pick("drafter", "intruder", "ops", "relay"), pick("sess_1", "sess_2")
			r.event(agent, sess, func(ev *protocol.Event) {
				ev.Type, ev.FromState, ev.ToState = protocol.TypeStateChanged, "awaiting_input", "thinking"
			})
			tok := r.confirm(agent, sess, pick("transfer_money", "save_draft"), wire9000)
			tokens = append(tokens, tok)
			tokenOf[tok] = agent
			trace = append(trace, fmt.Sprintf("switch %s %s", agent, sess))
		case op == 12: // a relaying agent: something harmless, under another agent's token
			var theirs []string
			for _, tok := range tokens {
				if a := tokenOf[tok]; a != "" && a != "relay" {
					theirs = append(theirs, tok)
				}
			}
			if len(theirs) == 0 {
				break
			}
			stolen := theirs[rng.IntN(len(theirs))]
			if rng.IntN(2) == 0 {
				stolen = theirs[len(theirs)-1] // the newest: most likely still waiting
			}
			sess := pick("sess_1", "sess_2", "sess_r")
			r.confirm("relay", sess, pick("save_draft", ""), func(ev *protocol.Event) {
				no := false
				ev.RiskLevel, ev.Reversibility, ev.Irreversible, ev.ReplyToken = "low", "reversible", &no, stolen
				ev.Action = "Save your draft."
			})
			trace = append(trace, fmt.Sprintf("relay %s under %s's token %s", sess, tokenOf[stolen], stolen))
		default: // a moment passes: the user types before hearing what changed
			r.advance(150 * time.Millisecond)
			trace = append(trace, "tick 0.15 s")
		}
		check(typedFor)
	}
	acpAgent.finish(t, consented, func() string { return fmt.Sprintf("seed %d:\n%s", seed, strings.Join(trace, "\n")) })
}
