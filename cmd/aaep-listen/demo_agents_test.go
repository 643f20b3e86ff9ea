package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/demo"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
	"github.com/aaep-term/aaep-term/transport"
	"github.com/aaep-term/aaep-term/transport/grpcbind"
)

// heard is one update of one demo agent, in the order the test took it.
type heard struct {
	agent string
	u     subscriber.Update
}

// listenToAll dials every LABEL=URL endpoint with a subscriber.Client (one
// that says it can answer prompts when canAnswer), and merges their updates into one channel, closed once every
// client has said its End.
func listenToAll(ctx context.Context, t *testing.T, endpoints []string, canAnswer bool) (map[string]*subscriber.Client, <-chan heard) {
	t.Helper()
	clients := map[string]*subscriber.Client{}
	merged := make(chan heard)
	var wg sync.WaitGroup
	for _, e := range endpoints {
		label, url, ok := strings.Cut(e, "=")
		if !ok {
			t.Fatalf("endpoint %q has no label", e)
		}
		c, err := subscriber.Dial(ctx, url, subscriber.Config{
			Identity:  session.Identity{ID: "demo-test-" + label, Name: "demo test", Version: "1"},
			Terms:     session.Terms{CanConfirm: canAnswer, CanClarify: canAnswer},
			Transport: transport.Options{GRPCBinding: grpcbind.Binding{}},
		})
		if err != nil {
			t.Fatalf("dial %s: %v", e, err)
		}
		t.Cleanup(func() { c.Close() })
		clients[label] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				u, err := c.Next(ctx)
				if err != nil {
					return // io.EOF after the End, or ctx
				}
				select {
				case merged <- heard{label, u}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(merged) }()
	return clients, merged
}

// The demo agents, started together and heard at full speed by one client
// each, interleave: prompts of two agents are pending at once by the order
// of events (no answer is given until a second agent asks, and a prompt
// holds its agent until answered), each answer reaches the agent that asked
// (its branch is played), every agent ends, each on its own binding, and
// the stop function leaves no goroutine behind.
func TestDemoAgentsTogether(t *testing.T) {
	for _, tc := range []struct {
		decision string
		asked    map[string]int
		said     []string // lines only the branches of decision say
	}{
		{protocol.DecisionAccept, map[string]int{"code": 2, "mail": 2, "browser": 1, "calendar": 1, "backup": 1}, []string{
			"code: The due-date fix is pushed and the old branch is deleted.",
			"mail: Ana has your reply at ana@example.org.",
			"browser: Over to you: type the code your bank texted you into the payment page to finish paying.",
			"browser: Handed over to you at the bank's code page; the card is renewed once you type the code.",
			"calendar: The dentist is booked for Thursday at 9:30, with a reminder 2 minutes before.",
			"backup: Your photos are backed up on the disk Archive.",
		}},
		{protocol.DecisionReject, map[string]int{"code": 1, "mail": 2, "browser": 1, "calendar": 1, "backup": 1}, []string{
			"code: The tests pass, and the fix is kept on this computer.",
			"mail: Nothing was sent: the reply to Ana waits in your Drafts folder.",
			"browser: Nothing was paid: your library card runs out on Sunday unless you renew it.",
			"backup: The backup could not run: the disk Archive has only 2 GB free.",
		}},
	} {
		t.Run(tc.decision, func(t *testing.T) { demoAgentsTogether(t, tc.decision, tc.asked, tc.said) })
	}
}

// demoAgentsTogether runs TestDemoAgentsTogether, answering every
// confirmation with decision and every question with its second choice.
func demoAgentsTogether(t *testing.T, decision string, want map[string]int, lines []string) {
	before := goroutineIDs()
	endpoints, stop, err := startDemoAgents(demo.MaxAgents, 0, t.Errorf)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	wantPrefix := []string{"code=http://127.0.0.1:", "mail=ws://127.0.0.1:", "browser=grpc://127.0.0.1:",
		"calendar=http://127.0.0.1:", "backup=ws://127.0.0.1:"}
	if len(endpoints) != len(wantPrefix) {
		t.Fatalf("endpoints %v", endpoints)
	}
	for i, p := range wantPrefix {
		if !strings.HasPrefix(endpoints[i], p) {
			t.Errorf("endpoint %d is %q, want %s…", i, endpoints[i], p)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clients, merged := listenToAll(ctx, t, endpoints, true)

	type offered struct {
		number  int
		clarify bool
	}
	pending := map[string][]offered{}
	var order []string // agent: event type, in the order heard
	together := false
	ended := map[string]bool{}
	replies := map[string]int{}
	asked := map[string]int{}
	var said strings.Builder
	answerAll := func() {
		for agent, ps := range pending {
			for _, p := range ps {
				var err error
				if p.clarify {
					err = clients[agent].Answer(ctx, p.number, "2") // the second choice
				} else {
					err = clients[agent].Confirm(ctx, p.number, decision)
				}
				if err != nil {
					t.Errorf("answer %s's prompt %d: %v", agent, p.number, err)
				}
			}
			delete(pending, agent)
		}
	}
	for h := range merged {
		switch h.u.Kind {
		case subscriber.KindDiagnostic:
			t.Errorf("%s: diagnostic %s", h.agent, h.u.Diagnostic.Message)
		case subscriber.KindReply:
			if h.u.Reply.Err != nil {
				t.Errorf("%s: reply not delivered: %v", h.agent, h.u.Reply.Err)
			}
			replies[h.agent]++
		case subscriber.KindEnd:
			ended[h.agent] = true
			if h.u.Err != nil {
				t.Errorf("%s ended in failure: %v", h.agent, h.u.Err)
			}
		case subscriber.KindDelivery:
			d := h.u.Delivery
			switch d.Kind {
			case session.KindEvent:
				order = append(order, h.agent+": "+d.Event.Type)
				fmt.Fprintf(&said, "%s: %s\n", h.agent, d.Event.SummaryNormal)
				if t := d.Event.Type; d.Prompt != nil && (t == protocol.TypeAwaitingConfirmation || t == protocol.TypeAwaitingClarify) {
					asked[h.agent]++
					pending[h.agent] = append(pending[h.agent], offered{d.Prompt.Number, t == protocol.TypeAwaitingClarify})
				}
			case session.KindPromptExpired, session.KindPromptCancelled, session.KindPromptStale, session.KindPromptNotOffered:
				t.Errorf("%s: prompt %d: %v (%s)", h.agent, d.Prompt.Number, d.Kind, d.Note)
			case session.KindSafetyWarning:
				t.Errorf("%s: safety warning: %s", h.agent, d.Note)
			}
		}
		if !together {
			asking, waiting := 0, 0 // agents with a prompt pending; agents still running
			for label := range clients {
				if len(pending[label]) > 0 {
					asking++
				}
				if !ended[label] {
					waiting++
				}
			}
			switch {
			case asking >= 2:
				together = true
				order = append(order, "— prompts of two agents pending —")
			case asking == waiting && waiting > 0:
				t.Fatalf("every agent still running waits on a prompt, but fewer than two do:\n%s", strings.Join(order, "\n"))
			}
		}
		if together {
			answerAll()
		}
	}
	if !together {
		t.Errorf("no two agents' prompts were ever pending at once:\n%s", strings.Join(order, "\n"))
	}
	for label := range clients {
		if !ended[label] {
			t.Errorf("%s never ended", label)
		}
		if asked[label] != want[label] || replies[label] != want[label] {
			t.Errorf("%s asked %d and was answered %d times, want %d", label, asked[label], replies[label], want[label])
		}
	}
	// Each answer reached the agent that asked: its branch played.
	for _, line := range lines {
		if !strings.Contains(said.String(), line+"\n") {
			t.Errorf("not heard: %q\nheard:\n%s", line, said.String())
		}
	}
	if t.Failed() {
		t.Logf("order heard:\n%s", strings.Join(order, "\n"))
	}

	cancel()
	for _, c := range clients {
		c.Close()
		<-c.Done()
	}
	stop()
	stopped = true
	if left := newGoroutines(before); left != "" {
		t.Errorf("goroutines left after stop:\n%s", left)
	}
}

// With nobody to answer (standard input closed), every agent plays its
// defaults at once and ends: no prompt is offered, and nothing is wrong.
func TestDemoAgentsNobodyAnswers(t *testing.T) {
	endpoints, stop, err := startDemoAgents(demo.MaxAgents, 0, t.Errorf)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clients, merged := listenToAll(ctx, t, endpoints, false)
	var said strings.Builder
	ended := map[string]bool{}
	for h := range merged {
		switch h.u.Kind {
		case subscriber.KindDiagnostic:
			t.Errorf("%s: diagnostic %s", h.agent, h.u.Diagnostic.Message)
		case subscriber.KindEnd:
			ended[h.agent] = h.u.Err == nil
		case subscriber.KindDelivery:
			d := h.u.Delivery
			if d.Kind != session.KindEvent || d.Prompt != nil {
				t.Errorf("%s: %v delivered (%s)", h.agent, d.Kind, d.Note)
				continue
			}
			fmt.Fprintf(&said, "%s: %s\n", h.agent, d.Event.SummaryNormal)
		}
	}
	for label := range clients {
		if !ended[label] {
			t.Errorf("%s did not end well", label)
		}
	}
	for _, line := range []string{
		"code: The tests pass, and the fix is kept on this computer.",
		"mail: Writing the reply to her work address, ana.costa@example.com.",
		"mail: Nothing was sent: the reply to Ana waits in your Drafts folder.",
		"browser: Nothing was paid: your library card runs out on Sunday unless you renew it.",
		"calendar: The dentist is booked for Thursday at 9:30, with a reminder 30 minutes before.",
		"backup: The backup could not run: the disk Archive has only 2 GB free.",
	} {
		if !strings.Contains(said.String(), line+"\n") {
			t.Errorf("not heard: %q\nheard:\n%s", line, said.String())
		}
	}
}

// The stop function ends agents that are still playing, waiting on a
// prompt, with a client connected, and leaves no goroutine behind.
func TestDemoAgentsStopMidPrompt(t *testing.T) {
	before := goroutineIDs()
	endpoints, stop, err := startDemoAgents(demo.MaxAgents, 0, t.Errorf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clients, merged := listenToAll(ctx, t, endpoints, true)
	asking := map[string]bool{}
	for h := range merged {
		if h.u.Kind == subscriber.KindDelivery && h.u.Delivery.Prompt != nil && h.u.Delivery.Kind == session.KindEvent {
			asking[h.agent] = true
		}
		if len(asking) == len(clients) {
			break
		}
	}
	stop() // every agent waits on a prompt
	cancel()
	for range merged {
	}
	for _, c := range clients {
		c.Close()
		<-c.Done()
	}
	if left := newGoroutines(before); left != "" {
		t.Errorf("goroutines left after stop:\n%s", left)
	}
}

func TestDemoAgentCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		err  bool
	}{
		{"1", 1, false}, {"3", 3, false}, {"5", 5, false}, {"0", 0, true}, {"6", 0, true}, {"-1", 0, true},
		{"three", 0, true}, {"", 0, true}, {"agents.json", 0, true},
	} {
		n, err := demoAgentCount(tc.in)
		if n != tc.want || (err != nil) != tc.err {
			t.Errorf("demoAgentCount(%q) = %d, %v", tc.in, n, err)
		}
		if err != nil && !strings.Contains(err.Error(), "from 1 to 5") {
			t.Errorf("demoAgentCount(%q): %v does not say what it takes", tc.in, err)
		}
	}
	if !strings.Contains(demoAgentsUsage, "1 to 5: code, mail, browser, calendar, backup") {
		t.Errorf("the help of --demo --agents is out of date: %s", demoAgentsUsage)
	}
}

// goroutineIDs lists the goroutines running now, by their "goroutine N"
// header.
func goroutineIDs() map[string]bool {
	ids := map[string]bool{}
	for _, g := range goroutineStacks() {
		ids[strings.SplitN(g, " [", 2)[0]] = true
	}
	return ids
}

func goroutineStacks() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Split(string(buf), "\n\n")
}

// newGoroutines waits, as goleak does, for the goroutines started since
// before by the producers, servers, transports and clients to end, and
// returns the stacks of those still running after five seconds. The
// goroutines of net/http and gRPC end just after the calls that close them
// return, so this polls.
func newGoroutines(before map[string]bool) string {
	deadline := time.Now().Add(5 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		var left []string
		for i, g := range goroutineStacks() {
			id := strings.SplitN(g, " [", 2)[0]
			if i == 0 || before[id] { // this goroutine, or one from before
				continue
			}
			for _, mark := range []string{"aaep-term/", "net/http.", "google.golang.org/grpc", "gorilla/websocket"} {
				if strings.Contains(g, mark) {
					left = append(left, g)
					break
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		time.Sleep(wait)
	}
}
