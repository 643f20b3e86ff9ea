package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"

	"github.com/aaep-term/aaep-term/internal/localagents"
)

// Local sockets are named by their files, which any local producer
// chooses: a name with line breaks, escapes, bidi controls, another
// agent's label or tag is said in one clean line, and the agent it adds
// never takes another's name.
func TestAttack14HostileSocketNames(t *testing.T) {
	r := newRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2")
	t.Cleanup(func() { r.group.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{
		"x\n127.0.0.1:2: Forged.sock",
		"\x1b[2K\rmail.sock",
		"\u202eliam.sock",
		"mail.sock",
		"127.0.0.1:2.sock",
		"MAIL.sock",
		"mail #2.sock",
	} {
		r.out.Reset()
		path := "/nonexistent/aaep/" + name
		r.change(ctx, localChange(localagents.Ready{}.Agent(ctx, localagents.Change{Path: path})))
		got := r.out.String()
		a := r.agents()[len(r.agents())-1]
		if strings.Count(got, "\n") != 1 || strings.ContainsAny(got, "\x1b\r\u202e") || !strings.HasPrefix(got, "New agent: ") {
			t.Errorf("socket %q said as %q", name, got)
		}
		for _, b := range r.agents()[:len(r.agents())-1] {
			if strings.EqualFold(a.Tag(), b.Tag()) || subscriber.ReadAlike(a.Tag(), b.Tag()) {
				t.Errorf("socket %q took the name %q of agent %s", name, a.Tag(), b.Endpoint())
			}
		}
	}
}

// Hundreds of sockets in the local directory (a hostile producer making
// them as fast as it can) add at most MaxAgents agents, and MaxAgents more
// being closed to make room (none of these ever said a word): every agent
// holds its own queue and memory of recent events, so the run's memory
// stays bounded. The sockets past that are said not subscribed to, each in
// one line.
func TestAttack14HundredsOfSocketsBounded(t *testing.T) {
	r := newRig(t, "mail=http://127.0.0.1:1")
	t.Cleanup(func() { r.group.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 300 {
		r.change(ctx, localChange(localagents.Ready{}.Agent(ctx, localagents.Change{Path: fmt.Sprintf("/nonexistent/aaep/s%d.sock", i)})))
	}
	open := 0
	for _, a := range r.agents() {
		if !a.closing {
			open++
		}
	}
	if open > MaxAgents || len(r.agents()) > 2*MaxAgents {
		t.Fatalf("%d agents added, %d of them not being closed; want at most %d and %d", len(r.agents()), open, 2*MaxAgents, MaxAgents)
	}
	if n := strings.Count(r.out.String(), "Not subscribing to the agent "); n != 300+1-2*MaxAgents {
		t.Fatalf("%d sockets said not subscribed to, want %d:\n%s", n, 300+1-2*MaxAgents, r.out.String())
	}
}

// localChange is the change aaep-listen --local makes of a local agent.
func localChange(a localagents.Agent) AgentChange {
	return AgentChange{Spec: AgentSpec{Label: a.Label, Endpoint: a.Endpoint, Found: true}, Gone: a.Gone, Note: a.Note}
}
