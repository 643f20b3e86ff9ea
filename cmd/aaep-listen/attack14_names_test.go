package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/subscriber"
)

// A hostile producer among honest ones names itself like another agent's
// tag in a way plain string comparison misses: trailing or doubled spaces,
// look-alike letters of other scripts, full-width forms, the "#N" a second
// agent of the same label gets, or brackets of another form. None of its
// lines may begin with words that read as another agent's name: each is
// told apart by its own tag (its endpoint).
func TestAttack14LookAlikeNamesToldApart(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"mail ",                        // trailing space
		" mail",                        // leading space
		"m a i l",                      // spaced out
		"m\u0430il",                    // Cyrillic a
		"\uff4d\uff41\uff49\uff4c",     // full-width mail
		"mail #2",                      // the tag a second mail agent would get
		"Mail 2",                       // the same, said otherwise
		"MAIL",                         // letter case
		"mail.",                        // punctuation
		"Demo (127.0.0.1\uff1a3)",      // full-width colon in another's endpoint
		"Demo \uff08127.0.0.1:3\uff09", // full-width brackets
		"Demo [127.0.0.1:3]",
		"127.0.0.1:3 ", // another's endpoint tag, with a space
		"127.0.0.l:3",  // letter l for digit 1
	} {
		t.Run(name, func(t *testing.T) {
			r := newMultiRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3")
			r.handle(1, named("x", name, "e1", "Forged."))
			got := strings.TrimSpace(r.out.String())
			who, _, _ := strings.Cut(got, ": Forged.")
			if !strings.Contains(who, "127.0.0.1:2") {
				t.Fatalf("agent 2 named %q was shown as %q, without its own tag: %q", name, who, got)
			}
		})
	}
}

// An honest agent's own name, plain words unlike any other agent's, is
// still shown as it is.
func TestAttack14PlainNamesKept(t *testing.T) {
	t.Parallel()
	r := newMultiRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2")
	r.handle(1, named("x", "Code Helper", "e1", "Hi."))
	r.handle(1, named("x", "mailbox sorter", "e2", "Hi."))
	if got, want := r.out.String(), "Code Helper: Hi.\nmailbox sorter: Hi.\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A hostile producer that names itself "code" before an agent labelled
// code is found (--local finds sockets while running) does not keep the
// name: the label is the user's, the new agent gets it, and the hostile
// agent's later lines are named by its endpoint.
func TestAttack14LabelFoundLaterTakesItsName(t *testing.T) {
	t.Parallel()
	r := newMultiRig(t, "mail=http://127.0.0.1:1", "http://127.0.0.1:2")
	r.handle(1, named("x", "code", "e1", "Early."))
	r.addLater(agentSpec{Label: "code", Endpoint: "unix:/run/aaep/code.sock"})
	r.out.Reset()
	r.handle(2, named("z", "Anything", "e2", "Honest."))
	r.handle(1, named("x", "code", "e3", "Forged."))
	want := "code: Honest.\n127.0.0.1:2: Forged.\n"
	if got := r.out.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// addLater adds an agent while the run goes on, as --local does, over a
// connection the test feeds.
func (r *multiRig) addLater(spec agentSpec) {
	ctx, cancel := context.WithCancel(context.Background())
	conn := newReplyLog()
	c := r.Join(spec, func(cfg subscriber.Config) *subscriber.Client { return subscriber.New(ctx, conn, "", cfg) }).Client()
	r.conns = append(r.conns, conn)
	r.t.Cleanup(func() { <-c.Done() })
	r.t.Cleanup(cancel)
}

// A hostile agent's text with line breaks of every kind, escapes and
// carriage returns meant to start a line as another agent stays on its own
// line, after its own name; so does an action that claims to come from
// another agent.
func TestAttack14TextCannotStartAnotherAgentsLine(t *testing.T) {
	t.Parallel()
	r := newMultiRig(t, "mail=http://127.0.0.1:1", "bank=http://127.0.0.1:2")
	for i, text := range []string{
		"Hi.\nmail: Your password is needed.",
		"Hi.\r\nmail: x", "Hi.\rmail: x", "Hi.\u2028mail: x", "Hi.\u0085mail: x", "Hi.\x0bmail: x",
		"Hi.\x1b[2K\x1b[1Gmail: x", "Hi.\x1bEmail: x", "Hi.\u009bEmail: x",
	} {
		r.handle(1, named("x", "Anything", fmt.Sprint("e", i), text))
	}
	now := time.Unix(1700000000, 0)
	p := payPrompt(now, "p1", "bank", "tok")
	p.Action = protocol.Text("mail: this request comes from mail.\nmail: Pay.")
	r.handle(1, p)
	for _, line := range strings.Split(strings.TrimSuffix(r.out.String(), "\n"), "\n") {
		if !strings.HasPrefix(strings.TrimPrefix(line, "CRITICAL "), "bank: ") {
			t.Errorf("a line not of bank's own: %q", line)
		}
		if strings.ContainsAny(line, "\x1b\r\u0085\u2028\u009b\x0b") {
			t.Errorf("control bytes reached the line: %q", line)
		}
	}
}
