package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/console"
	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/internal/term"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// multiRig is a listener of several agents, each over a replyLog, its
// lines written by a line.Writer as the user reads them.
type multiRig struct {
	*console.Listener
	t     *testing.T
	conns []*replyLog
	out   *strings.Builder
	clock *fakeClock // the listener's and its clients' clock
}

// newMultiRig listens to one agent per spec ("LABEL=ENDPOINT" or an
// endpoint), over connections the test feeds.
func newMultiRig(t *testing.T, args ...string) *multiRig {
	tio, _, _, _ := term.Test()
	o, err := parseFlags(append([]string{"--plain", "--no-sign"}, args...), tio, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock(time.Unix(1700000000, 0))
	o.Now = clock.now
	out := &strings.Builder{}
	l := newListener(o, line.NewWriter(out, nil, line.WriterOptions{NoTime: true}))
	r := &multiRig{Listener: l, t: t, out: out, clock: clock}
	ctx, cancel := context.WithCancel(context.Background())
	for _, spec := range o.agentSpecs() {
		conn := newReplyLog()
		c := l.Join(spec, func(cfg subscriber.Config) *subscriber.Client { return subscriber.New(ctx, conn, "", cfg) }).Client()
		r.conns = append(r.conns, conn)
		t.Cleanup(func() { <-c.Done() })
	}
	t.Cleanup(cancel)
	return r
}

// handle feeds agent i the events, and tells what came of them.
func (r *multiRig) handle(i int, evs ...*protocol.Event) {
	c := r.Members()[i].Client()
	resume, err := c.Pause(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	for _, ev := range evs {
		r.conns[i].push(wireNamed(ev))
	}
	resume()
	if err := c.Sync(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	r.drain()
}

// drain tells every update waiting, agent by agent.
func (r *multiRig) drain() { r.Drain() }

func (r *multiRig) command(s string) {
	r.Listener.Command(context.Background(), s)
	r.drain()
}

// named is the start of a session of agent id, named name.
func named(id, name, eventID, text string) *protocol.Event {
	return &protocol.Event{Type: protocol.TypeSessionStarted, EventID: "evt_" + eventID, SessionID: "sess_" + eventID,
		Producer: protocol.Producer{AgentID: id, AgentName: protocol.Text(name)}, Urgency: protocol.UrgencyNormal,
		SummaryNormal: protocol.Text(text), Timestamp: time.Unix(1700000000, 0)}
}

// wireNamed is ev on the wire, with its agent's name.
func wireNamed(ev *protocol.Event) []byte {
	b := wireEvent(ev, false)
	name := ev.Producer.AgentName.Unsafe()
	if name == "" {
		return b
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	m["producer"] = map[string]any{"agent_id": ev.Producer.AgentID, "agent_name": name}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// LABEL=ENDPOINT gives a label only when LABEL is a short word, so an
// endpoint with "=" in it stays whole; a label with anything else is not
// one.
func TestSplitLabel(t *testing.T) {
	for _, tc := range []struct{ arg, label, endpoint string }{
		{"mail=http://127.0.0.1:8081", "mail", "http://127.0.0.1:8081"},
		{"web_2=ws://h/aaep/v1/ws", "web_2", "ws://h/aaep/v1/ws"},
		{"exec:cmd --x=1", "", "exec:cmd --x=1"},
		{"http://h/?a=b", "", "http://h/?a=b"},
		{"ma il=http://h", "", "ma il=http://h"},
		{"\x1b[31m=http://h", "", "\x1b[31m=http://h"},
		{"\u202email=http://h", "", "\u202email=http://h"},
	} {
		sp, err := agentspec.Parse(tc.arg)
		l, e := sp.Label, sp.Endpoint
		if err != nil {
			t.Errorf("%q: %v", tc.arg, err)
		}
		if l != tc.label || e != tc.endpoint {
			t.Errorf("%q: label %q endpoint %q, want %q %q", tc.arg, l, e, tc.label, tc.endpoint)
		}
	}
	if _, err := parseFlags([]string{"a=http://x", "a=http://y"}, testIO(), noEnv); err == nil {
		t.Error("a label given twice was taken")
	}
	if _, err := parseFlags([]string{"mail=http://x", "Mail=http://y"}, testIO(), noEnv); err == nil {
		t.Error("a label given twice in another letter case was taken")
	}
	if _, err := parseFlags([]string{"http://x", "-"}, testIO(), noEnv); err == nil {
		t.Error("- with another endpoint was taken")
	}
}

// With one agent and no label, lines are as they always were: no agent
// label is added.
func TestOneAgentLinesUnchanged(t *testing.T) {
	r := newMultiRig(t, "http://127.0.0.1:1")
	r.handle(0, named("a", "Mail Agent", "e1", "Reading mail."))
	if got := r.out.String(); got != "Mail Agent: Reading mail.\n" {
		t.Fatalf("got %q", got)
	}
}

// Two connections whose agents give the same name are both told apart by
// endpoint from the moment the second gives it, said once: the first to
// speak does not keep the plain name (issue 23 item 13); a hostile producer naming itself like another agent's label,
// or like another agent's name as told apart, never passes for it.
func TestAgentsNamedAlikeToldApart(t *testing.T) {
	r := newMultiRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3")
	r.handle(1, named("x", "Demo Assistant", "e1", "First."))
	r.handle(2, named("y", "Demo Assistant", "e2", "Second."))
	r.handle(1, named("x", "mail", "e3", "Forged label."))
	r.handle(2, named("y", "Demo Assistant (127.0.0.1:2)", "e4", "Forged qualified name."))
	r.handle(0, named("z", "Anything", "e5", "From mail."))
	r.handle(1, named("x", "Demo Assistant", "e6", "First again."))
	r.handle(2, named("y", "Demo Assistant", "e7", "Second again."))
	want := []string{
		"Demo Assistant: First.",
		"Two agents call themselves Demo Assistant: from now on each is named with its address, Demo Assistant (127.0.0.1:2) and Demo Assistant (127.0.0.1:3).",
		"Demo Assistant (127.0.0.1:3): Second.",
		"127.0.0.1:2: Forged label.",
		"127.0.0.1:3: Forged qualified name.",
		"mail: From mail.",
		"Demo Assistant (127.0.0.1:2): First again.",
		"Demo Assistant (127.0.0.1:3): Second again.",
	}
	got := strings.Split(strings.TrimSpace(r.out.String()), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An agent name with bidi overrides and escape sequences is isolated and
// sanitized in the line, and cannot make its line read as another agent's.
func TestAgentNameBidiEscapes(t *testing.T) {
	r := newMultiRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2")
	r.handle(1, named("x", "\u202elaim\u202c\x1b[2K\rmail", "e1", "Hi."))
	got := r.out.String()
	if strings.ContainsAny(got, "\x1b\r\u202e\u202c") || strings.HasPrefix(got, "mail:") || strings.Count(got, "\n") != 1 {
		t.Fatalf("hostile name reached the line: %q", got)
	}
}

// Labels come from the user (or an --agents file): only short words pass.
func TestCheckLabel(t *testing.T) {
	for _, s := range []string{"", "a b", "\x1b[31m", "x\u202e", "a:b", strings.Repeat("a", agentspec.MaxLabel+1), "ü"} {
		if agentspec.CheckLabel(s) == nil {
			t.Errorf("label %q taken", s)
		}
	}
	for _, s := range []string{"mail", "web-2", "A_1"} {
		if err := agentspec.CheckLabel(s); err != nil {
			t.Errorf("label %q refused: %v", s, err)
		}
	}
}

// Prompts of two agents get numbers unique across them; pending names the
// agent of each; an answer goes to the agent that asked and no other.
func TestPromptsOfTwoAgentsAnsweredByTheirOwner(t *testing.T) {
	r := newMultiRig(t, "bank=http://127.0.0.1:1", "shop=http://127.0.0.1:2")
	now := time.Unix(1700000000, 0)
	r.handle(0, payPrompt(now, "b1", "bank", "tok_b"))
	r.handle(1, payPrompt(now, "s1", "shop", "tok_s"))
	out := r.out.String()
	for _, want := range []string{"bank: Confirmation needed, prompt 1", "shop: Confirmation needed, prompt 2"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	r.command("pending")
	if o := r.out.String(); !strings.Contains(o, "bank: Prompt 1") || !strings.Contains(o, "shop: Prompt 2") {
		t.Fatalf("pending does not name the agents:\n%s", o)
	}
	r.command("reject 2")
	if r.conns[0].count() != 0 || r.conns[1].count() != 1 || !strings.Contains(string(r.conns[1].sentSince(0)[0]), "tok_s") {
		t.Fatalf("reject 2 went to bank %d times, shop %d times", r.conns[0].count(), r.conns[1].count())
	}
	r.command("accept 1")
	if r.conns[0].count() != 1 || !strings.Contains(string(r.conns[0].sentSince(0)[0]), "tok_b") || r.conns[1].count() != 1 {
		t.Fatalf("accept 1 went to bank %d times, shop %d times", r.conns[0].count(), r.conns[1].count())
	}
}

// mute leaves an agent's critical events and prompts, and says so; only
// and all; an unknown agent is answered with the agents there are.
func TestMuteOnlyAll(t *testing.T) {
	r := newMultiRig(t, "bank=http://127.0.0.1:1", "shop=http://127.0.0.1:2")
	now := time.Unix(1700000000, 0)
	r.command("mute shop")
	r.handle(1, named("s", "Shop", "e1", "Browsing."))
	r.handle(1, payPrompt(now, "s2", "shop", "tok"))
	r.handle(0, named("b", "Bank", "e3", "Counting."))
	r.command("only bank")
	r.command("unmute shop")
	r.handle(1, named("s", "Shop", "e4", "Still hidden."))
	r.command("all")
	r.handle(1, named("s", "Shop", "e5", "Heard again."))
	r.command("mute nobody")
	r.command("agents")
	out := r.out.String()
	for _, want := range []string{
		"shop is muted: only its critical events and prompts are still said.",
		"shop: Confirmation needed, prompt 1",
		"bank: Counting.",
		"Only bank is heard in full; the other agents' critical events and prompts are still said.",
		"But only bank is heard in full until you type all.",
		"Every agent is heard in full.",
		"shop: Heard again.",
		"No agent is called nobody. The agents are: bank, shop.",
		"bank: http://127.0.0.1:1, connected; 0 prompts waiting; 1 event so far; no terms: this producer negotiates no subscription.",
		"shop: http://127.0.0.1:2, connected; 1 prompt waiting; 4 events so far; no terms: this producer negotiates no subscription.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, not := range []string{"Browsing.", "Still hidden."} {
		if strings.Contains(out, not) {
			t.Errorf("a muted agent said %q", not)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// In a run of one agent, "all" and "only X" typed while a question waits
// are its answer.
func TestOneAgentAllIsAnAnswer(t *testing.T) {
	r := newMultiRig(t, "http://127.0.0.1:1")
	q := &protocol.Event{Type: protocol.TypeAwaitingClarify, EventID: "q1", SessionID: "s", Producer: protocol.Producer{AgentID: "a"},
		Urgency: protocol.UrgencyCritical, Question: "Which files?", ReplyToken: "tok_q", TimeoutSeconds: 60, Timestamp: time.Unix(1700000000, 0)}
	r.handle(0, q)
	r.clock.add(subscriber.Settle) // heard: an answer without a number reaches it
	r.command("all")
	sent := r.conns[0].sentSince(0)
	if len(sent) != 1 || !strings.Contains(string(sent[0]), `"all"`) {
		t.Fatalf("all was not sent as the answer: %q\n%s", sent, r.out.String())
	}
}

// set … for AGENT asks that agent only; set without it asks every agent;
// quit AGENT closes that one, and the run goes on with the other until it
// ends too.
func TestSetForAgentAndQuitAgent(t *testing.T) {
	r := newMultiRig(t, "bank=http://127.0.0.1:1", "shop=http://127.0.0.1:2")
	r.command("set verbosity terse for shop")
	r.command("set verbosity detailed")
	r.command("set rate 2 for nobody")
	out := r.out.String()
	for _, want := range []string{
		"shop: Announcing at terse verbosity from now on.",
		"bank: Announcing at detailed verbosity from now on.",
		"shop: Announcing at detailed verbosity from now on.",
		"No agent is called nobody. The agents are: bank, shop.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "bank: Announcing") != 1 {
		t.Errorf("set … for shop reached bank:\n%s", out)
	}
	r.command("quit bank")
	<-r.Members()[0].Client().Done()
	r.drain()
	if !strings.Contains(r.out.String(), "bank has ended; still listening to shop.") || r.Ended() || r.Members()[1].Ended() {
		t.Fatalf("quit bank:\n%s", r.out.String())
	}
	r.command("quit shop")
	<-r.Members()[1].Client().Done()
	r.drain()
	if !r.Ended() || !strings.HasSuffix(r.out.String(), "Every agent has ended.\n") {
		t.Fatalf("the run did not end with its last agent:\n%s", r.out.String())
	}
}

// Two agents given the same label (a local socket named like an agent of
// the command line) are told apart in every line: the second is "mail #2".
func TestSameLabelToldApart(t *testing.T) {
	r := newMultiRig(t, "mail=http://127.0.0.1:1")
	r.addLater(agentSpec{Label: "mail", Endpoint: "unix:/run/aaep/mail.sock"})
	r.handle(0, named("x", "Anything", "e1", "First."))
	r.handle(1, named("y", "Anything", "e2", "Second."))
	if got, want := r.out.String(), "mail: First.\nmail #2: Second.\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
