package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/policy"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// textLog is an output that keeps every announcement and line said.
type textLog struct {
	anns  []announce.Announcement
	lines []string
}

func (o *textLog) Announce(a announce.Announcement) error { o.anns = append(o.anns, a); return nil }
func (o *textLog) Diagnostic(session.Diagnostic) error    { return nil }
func (o *textLog) Say(_ time.Time, s string) error        { o.lines = append(o.lines, s); return nil }
func (o *textLog) Flush() error                           { return nil }

// all is everything announced and said, one per line.
func (o *textLog) all() string {
	var b strings.Builder
	for _, a := range o.anns {
		b.WriteString(a.Text + "\n")
	}
	for _, s := range o.lines {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// gateRig is a listener in-process: the real client (session engine,
// decision gate), announcer and command layer, with a connection that keeps
// replies.
type gateRig struct {
	t    *testing.T
	l    *testRig
	out  *textLog
	conn *replyLog // keeps what was sent
	mu   sync.Mutex
	now  time.Time // guarded by mu: the client's clock
	seq  map[string]int64
	n    int
	// wire is kept for the tests that set it: every event goes as JSON
	// through the client's decoder, as a producer's frame. dupUndo, when
	// set on an event, gives its irreversible flag twice, the second time
	// the other way.
	wire    bool
	dupUndo bool
}

func newGateRig(t *testing.T, policyJSON string) *gateRig {
	return newGateRigWith(t, policyJSON, false)
}

// newGateRigWith is newGateRig with --auto-reply reject when autoReject.
func newGateRigWith(t *testing.T, policyJSON string, autoReject bool) *gateRig {
	t.Helper()
	return newGateRigAs(t, "", policyJSON, autoReject)
}

// newGateRigAs is newGateRigWith for an agent the user labelled label
// ("" for none).
func newGateRigAs(t *testing.T, label, policyJSON string, autoReject bool) *gateRig {
	t.Helper()
	r := &gateRig{t: t, out: &textLog{}, seq: map[string]int64{},
		now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	tio, _, _, _ := term.Test()
	o := &options{IO: tio, Verbosity: "normal", Now: r.clock, ReorderWait: 50 * time.Millisecond}
	o.Sign.Off = true
	if autoReject {
		o.AutoReply = protocol.DecisionReject
	}
	if policyJSON != "" {
		p, err := policy.Parse([]byte(policyJSON))
		if err != nil {
			t.Fatal(err)
		}
		o.Decide.policy = p
	}
	if label != "" {
		o.Endpoint = "http://127.0.0.1:9/"
		o.Agents = []agentSpec{{Label: label, Endpoint: o.Endpoint}}
	}
	r.l = newRig(t, o, r.out)
	r.l.wire = func(ev *protocol.Event) []byte { return wireEvent(ev, r.dupUndo) }
	r.conn = r.l.conn
	return r
}

func (r *gateRig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

// advance moves the clock on by d and lets the client do what is due.
func (r *gateRig) advance(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	r.mu.Unlock()
	r.l.sync()
}

// confirm sends a confirmation from agent in sess about tool; set fills
// its stakes. It returns the reply token.
func (r *gateRig) confirm(agent, sess, tool string, set func(*protocol.Event)) string {
	tok := fmt.Sprintf("rpl_%d", r.n+1)
	r.event(agent, sess, func(ev *protocol.Event) {
		ev.Type, ev.Urgency, ev.Tool = protocol.TypeAwaitingConfirmation, protocol.UrgencyCritical, tool
		ev.Action, ev.Consequence, ev.DefaultDecision = "Do it.", "It is done.", protocol.DecisionReject
		ev.ReplyToken, ev.TimeoutSeconds = tok, 60
		set(ev)
		tok = ev.ReplyToken
	})
	return tok
}

// event sends an event of agent's session sess, filled by set.
func (r *gateRig) event(agent, sess string, set func(*protocol.Event)) {
	r.n++
	n := r.seq[sess] // numbered on across agents, so the engine keyed by either takes it
	r.seq[sess] = n + 1
	ev := &protocol.Event{SessionID: sess, Seq: n, HasSeq: true, Timestamp: r.clock(), Urgency: protocol.UrgencyNormal,
		EventID: fmt.Sprintf("evt_%d", r.n), Producer: protocol.Producer{AgentID: agent}}
	set(ev)
	r.l.handle(ev)
}

func (r *gateRig) command(s string) { r.l.command(context.Background(), s) }

// decision returns the decision sent for token, or "" when none was.
func (r *gateRig) decision(token string) (decision, by string) {
	for _, msg := range r.conn.sent {
		var m struct {
			Token     string `json:"reply_token"`
			Decision  string `json:"decision"`
			DecidedBy string `json:"decided_by"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			r.t.Fatalf("sent %q: %v", msg, err)
		}
		if m.Token == token {
			return m.Decision, m.DecidedBy
		}
	}
	return "", ""
}

func lowReversible(ev *protocol.Event) {
	no := false
	ev.RiskLevel, ev.Irreversible = "low", &no
}

// An "accept always" is the answer of one agent: another agent reusing the
// session id is asked.
func TestAlwaysIsPerAgent(t *testing.T) {
	t.Parallel()
	r := newGateRig(t, "")
	first := r.confirm("drafter", "sess_1", "save_draft", lowReversible)
	r.command("accept always 1")
	if d, _ := r.decision(first); d != protocol.DecisionAccept {
		t.Fatalf("prompt 1 was not accepted: %q", d)
	}
	same := r.confirm("drafter", "sess_1", "save_draft", lowReversible)
	if d, by := r.decision(same); d != protocol.DecisionAccept || by != "auto:always" {
		t.Fatalf("the same agent's next prompt: %q by %q, want accept by auto:always\n%s", d, by, r.out.all())
	}
	other := r.confirm("intruder", "sess_1", "save_draft", lowReversible)
	if d, by := r.decision(other); d != "" {
		t.Fatalf("another agent reusing the session id got %q by %q without asking\n%s", d, by, r.out.all())
	}
	if !strings.Contains(r.out.all(), "Confirmation needed, prompt 3") {
		t.Fatalf("the other agent's prompt was not offered:\n%s", r.out.all())
	}
}

// A remembered "accept always" is checked again at every use: a prompt
// riskier than the one answered is asked, and the line says why.
func TestAlwaysAsksAgainWhenRiskier(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*protocol.Event)
		why  string
	}{
		{"irreversible high", func(ev *protocol.Event) {
			yes := true
			ev.RiskLevel, ev.Irreversible = "high", &yes
		}, "cannot be undone and is high risk"},
		{"higher risk", func(ev *protocol.Event) {
			no := false
			ev.RiskLevel, ev.Irreversible = "medium", &no
		}, "its risk is medium, higher than the low risk"},
		{"cannot be undone", func(ev *protocol.Event) {
			ev.RiskLevel, ev.Reversibility = "low", "irreversible"
		}, "cannot be undone, and the one you answered could be"},
		{"contradiction", func(ev *protocol.Event) {
			no := false
			ev.RiskLevel, ev.Irreversible, ev.Reversibility = "low", &no, "irreversible"
		}, "cannot be undone, and the one you answered could be"},
		{"unknown reversibility", func(ev *protocol.Event) {
			ev.RiskLevel, ev.Reversibility = "low", "mostly"
		}, "cannot be undone, and the one you answered could be"},
		{"risk not given", func(ev *protocol.Event) {
			no := false
			ev.Irreversible = &no
		}, "its risk is not given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRig(t, "")
			r.confirm("drafter", "sess_1", "save_draft", lowReversible)
			r.command("accept always 1")
			tok := r.confirm("drafter", "sess_1", "save_draft", tc.set)
			if d, by := r.decision(tok); d != "" {
				t.Fatalf("a riskier prompt got %q by %q without asking\n%s", d, by, r.out.all())
			}
			if !strings.Contains(r.out.all(), "asking you again") || !strings.Contains(r.out.all(), tc.why) {
				t.Errorf("no line says why prompt 2 is asked again (%q):\n%s", tc.why, r.out.all())
			}
		})
	}
}

// A prompt whose irreversible flag and reversibility disagree cannot be
// undone for the policy as for the announcement: a rule for reversible
// actions does not accept it.
func TestPolicyReadsReversibilityAsAnnounced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*protocol.Event)
	}{
		{"flag false, reversibility irreversible", func(ev *protocol.Event) {
			no := false
			ev.Irreversible, ev.Reversibility = &no, "irreversible"
		}},
		{"flag true, reversibility reversible", func(ev *protocol.Event) {
			yes := true
			ev.Irreversible, ev.Reversibility = &yes, "reversible"
		}},
		{"unknown reversibility", func(ev *protocol.Event) { ev.Reversibility = "mostly" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newGateRig(t, `{"rules":[{"name":"drafts","tool":"save_*","irreversible":false,"decision":"accept"}]}`)
			tok := r.confirm("drafter", "sess_1", "save_draft", func(ev *protocol.Event) {
				ev.RiskLevel = "high"
				tc.set(ev)
			})
			if !strings.Contains(r.out.all(), "cannot be undone") {
				t.Errorf("not announced as one that cannot be undone:\n%s", r.out.all())
			}
			if d, by := r.decision(tok); d != "" {
				t.Fatalf("the policy answered %q by %q a prompt announced as one that cannot be undone\n%s", d, by, r.out.all())
			}
		})
	}
}
