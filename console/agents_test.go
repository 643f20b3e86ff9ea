package console

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/subscriber"
)

// An agent added while running (the hook --local uses) is announced and
// listened to; one said to be gone is closed, and the others go on.
func TestAgentAddedAndGoneWhileRunning(t *testing.T) {
	url := serve(t, "happy")
	r := newRig(t, "bank=http://127.0.0.1:1")
	t.Cleanup(func() { r.group.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.change(ctx, AgentChange{Spec: AgentSpec{Endpoint: url}})
	added := r.agents()[1]
	host := strings.TrimPrefix(url, "http://")
	if !strings.Contains(r.out.String(), "New agent: "+host+".") || !r.multi {
		t.Fatalf("no new agent said:\n%s", r.out.String())
	}
	b := r.nextBatch() // its updates come to the loop
	if b.Member != added.Member {
		t.Fatalf("a batch of agent %s", b.Member.Tag())
	}
	r.change(ctx, AgentChange{Spec: AgentSpec{Endpoint: url}, Gone: true})
	if !strings.Contains(r.out.String(), "Agent "+host+" has gone.") {
		t.Fatalf("the agent gone was not said:\n%s", r.out.String())
	}
	for !added.Ended() {
		b := r.nextBatch()
		for _, u := range b.Updates {
			r.update(added, &u)
		}
	}
	if r.ended || r.agents()[0].Ended() {
		t.Fatalf("the run ended with the agent gone:\n%s", r.out.String())
	}
}

// An agent found after standard input ended (--local) is told at once that
// nobody can answer, as the others were: its prompts never wait for nobody.
func TestAgentAddedAfterInputEndedCannotAnswer(t *testing.T) {
	url := serve(t, "happy")
	r := newRig(t, "bank=http://127.0.0.1:1")
	t.Cleanup(func() { r.group.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.inputEnded(ctx)
	r.change(ctx, AgentChange{Spec: AgentSpec{Endpoint: url}})
	if a := r.agents()[1]; a.terms.CanConfirm || a.terms.CanClarify {
		t.Fatalf("an agent added after input ended asks to answer: %+v", a.terms)
	}
}

// Agents that come and go for a long time (--local churn) leave the
// listener's list bounded: the live ones and the last few ended, for the
// agents command and for prompt numbers (subscriber.DefaultKeepEnded).
func TestAgentsComeAndGoListBounded(t *testing.T) {
	url := serve(t)
	r := newRig(t, "bank=http://127.0.0.1:1")
	t.Cleanup(func() { r.group.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 1000 {
		r.change(ctx, AgentChange{Spec: AgentSpec{Label: fmt.Sprintf("a%d", i), Endpoint: url}})
		as := r.agents()
		added := as[len(as)-1]
		for !added.Ended() {
			b := r.nextBatch()
			for _, u := range b.Updates {
				r.update(b.Member.Value.(*agent), &u)
			}
		}
		if n := len(r.agents()); n > 1+subscriber.DefaultKeepEnded {
			t.Fatalf("after %d agents came and went, %d listed", i+1, n)
		}
	}
	r.out.Reset()
	r.command("agents")
	if n := strings.Count(r.out.String(), "\n"); n != 1+subscriber.DefaultKeepEnded || !strings.Contains(r.out.String(), "a999: ") {
		t.Fatalf("agents lists %d:\n%s", n, r.out.String())
	}
}
