package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
	"github.com/aaep-term/aaep-term/producer"
)

// sure takes the second step of an accept that cannot be undone, when one
// waits, as the user would: with yes. Tests about other things use it.
func (r *testRig) sure() {
	if r.Held() {
		r.command(context.Background(), "yes")
	}
}

// One keystroke never sends what cannot be undone: accepting a high-risk,
// irreversible confirmation asks a second step naming the action, and only
// yes sends it; anything else sends nothing and the prompt still waits.
// A low-risk confirmation stays one step.
func TestAcceptThatCannotBeUndoneTakesTwoSteps(t *testing.T) {
	t.Parallel()
	const ask = "Transfer 86.40 euros from the checking account ending in 4411 to Lisbon Energy, which cannot be undone? " +
		"Type yes to send; anything else sends nothing and prompt 1 waits."
	for _, tc := range []struct {
		name  string
		typed []string
		want  producer.Resolution
		say   []string // whole lines, without their time
		never []string
	}{
		{"accept, then yes: sent", []string{"accept 1", "yes"}, producer.Accepted,
			[]string{ask, "Sent your answer to prompt 1: accept."}, []string{"Not sent"}},
		{"y, then yes: sent", []string{"y", "yes"}, producer.Accepted,
			[]string{ask, "Sent your answer to prompt 1: accept."}, nil},
		{"accept, then reject: not sent, then the reject is", []string{"accept 1", "reject 1"}, producer.Rejected,
			[]string{ask, "Not sent: prompt 1 still waits for your answer.", "Sent your answer to prompt 1: reject."},
			[]string{"Sent your answer to prompt 1: accept."}},
		{"accept, then an empty line, then reject", []string{"accept 1", "", "reject 1"}, producer.Rejected,
			[]string{ask, "Not sent: prompt 1 still waits for your answer.", "Sent your answer to prompt 1: reject."},
			[]string{"Sent your answer to prompt 1: accept.", "An empty line answers nothing"}},
		{"accept twice is not yes", []string{"accept 1", "accept 1", "reject 1"}, producer.Rejected,
			[]string{ask, "Not sent: prompt 1 still waits for your answer."},
			[]string{"Sent your answer to prompt 1: accept."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, url := serve(t, producer.Options{Scenarios: confirmWithTimeout(t, 120)})
			r := startListener(t, "--plain", "--no-sign", "--no-time", "--answer-after", "0", url)
			r.waitOutput(t, "Confirmation needed, prompt 1:")
			for i, s := range tc.typed {
				fmt.Fprintln(r.stdin, s)
				if i == 0 {
					r.waitOutput(t, ask)
				}
			}
			r.wait(t)
			if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != tc.want {
				t.Fatalf("producer outcomes %+v, want %v\n%s", outs, tc.want, r.stdout())
			}
			lines := strings.Split(r.stdout(), "\n")
			for _, w := range tc.say {
				found := false
				for _, l := range lines {
					found = found || strings.HasSuffix(l, w)
				}
				if !found {
					t.Errorf("no line %q:\n%s", w, r.stdout())
				}
			}
			for _, w := range tc.never {
				if strings.Contains(r.stdout(), w) {
					t.Errorf("%q was said:\n%s", w, r.stdout())
				}
			}
		})
	}
}

// A confirmation of medium risk, or one that can be undone, is accepted in
// one step, as before.
func TestLowRiskAcceptIsOneStep(t *testing.T) {
	t.Parallel()
	for _, change := range [][2]string{
		{`"risk_level": "high"`, `"risk_level": "medium"`},
		{`"irreversible": true,
      "reversibility": "irreversible",`, `"irreversible": false,
      "reversibility": "reversible_with_effort",`},
	} {
		data, err := os.ReadFile("../../demo/scenarios/confirm.json")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(data), change[0], change[1], 1)
		if text == string(data) {
			t.Fatalf("confirm.json has no %s", change[0])
		}
		sc, err := producer.ParseScenario([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		p, url := serve(t, producer.Options{Scenarios: []producer.Scenario{sc}})
		r := startListener(t, "--plain", "--no-sign", "--answer-after", "0", url)
		r.waitOutput(t, "Confirmation needed, prompt 1:")
		fmt.Fprintln(r.stdin, "accept 1")
		r.wait(t)
		if outs := p.Outcomes(); len(outs) != 1 || outs[0].Resolution != producer.Accepted {
			t.Fatalf("%s: producer outcomes %+v\n%s", change[1], outs, r.stdout())
		}
		if strings.Contains(r.stdout(), "cannot be undone?") {
			t.Errorf("%s: a second step was asked:\n%s", change[1], r.stdout())
		}
	}
}

// In the TUI, a on a high-risk confirmation that cannot be undone asks the
// second step naming the action; a key other than y sends nothing, and y
// after a again sends the accept (real tmux).
func TestTUIAcceptThatCannotBeUndoneTakesTwoSteps(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	term := ttytest.Start(t, 100, 30, []string{"NO_COLOR=1", "TERM=xterm-256color"},
		bin+" --tui --no-sign --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm")
	term.WaitFor(30*time.Second, "CONFIRMATION NEEDED")
	term.Keys("a")
	term.WaitFor(10*time.Second, "Press y to send; any other key sends nothing.")
	term.Keys("n")
	s := term.WaitFor(10*time.Second, "Not sent: prompt 1 still waits for your answer.")
	if strings.Contains(s, "Sending: accept") {
		t.Fatalf("the accept was sent without its second step:\n%s", s)
	}
	term.Keys("a")
	term.WaitFor(10*time.Second, "Press y to send; any other key sends nothing.")
	term.Keys("y")
	term.WaitFor(30*time.Second, "Sending 86.40 euros to Lisbon Energy")
	term.Keys("q")
	term.WaitFor(10*time.Second, "EXITED rc=0")
}
