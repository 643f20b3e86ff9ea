package session

import (
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
)

// confirmation returns a confirmation of session sess numbered seq, with a
// timeout of 60 seconds and reply token "rpl_" + token.
func confirmation(sess string, seq int64, token string) *protocol.Event {
	e := ev(sess, seq, "awaiting.confirmation")
	e.ReplyToken = "rpl_" + token
	e.TimeoutSeconds = 60
	e.DefaultDecision = protocol.DecisionReject
	e.Action = "Transfer 500 dollars to savings"
	return e
}

// clarification returns a clarification of session sess numbered seq.
func clarification(sess string, seq int64, token string, kinds ...string) *protocol.Event {
	e := ev(sess, seq, "awaiting.clarification")
	e.ReplyToken = "rpl_" + token
	e.TimeoutSeconds = 60
	e.Question = "At what age do you want to retire?"
	e.AcceptedResponseKinds = kinds
	return e
}

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// kinds returns the kinds of r's deliveries, in order, with the event ID.
func kinds(r *recorder) []string {
	var out []string
	for _, x := range r.log {
		if x.d != nil {
			out = append(out, x.String())
		}
	}
	return out
}

func TestPromptPending(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a1"), t0)
	c := clarification("s", 2, "a2")
	c.Timestamp = t0.Add(-10 * time.Second) // our clock is 10 s behind the producer's
	e.Handle(c, t0)

	ds := r.deliveries(KindEvent)
	if len(ds) != 3 {
		t.Fatalf("deliveries: %v", kinds(r))
	}
	p1, p2 := ds[1].Prompt, ds[2].Prompt
	if p1 == nil || p2 == nil {
		t.Fatal("prompt events delivered without a Prompt")
	}
	if p1.Number != 1 || p2.Number != 2 || p1.State != PromptPending || p2.State != PromptPending {
		t.Fatalf("prompts: %+v %+v", *p1, *p2)
	}
	if !p1.Deadline.Equal(at(60)) {
		t.Errorf("deadline without timestamp = %v, want receive time + 60 s", p1.Deadline)
	}
	if !p2.Deadline.Equal(at(50)) {
		t.Errorf("deadline with an earlier timestamp = %v, want timestamp + 60 s", p2.Deadline)
	}
	if ds[0].Prompt != nil {
		t.Error("a plain event carries a Prompt")
	}
	if got := e.Pending(); len(got) != 2 || got[0] != p1 || got[1] != p2 {
		t.Fatalf("Pending() = %v", got)
	}

	// A clock ahead of the producer's does not lengthen the wait.
	late := confirmation("s", 3, "a3")
	late.Timestamp = t0.Add(time.Hour)
	e.Handle(late, t0)
	if p := e.Pending()[2]; p.Number != 3 || !p.Deadline.Equal(at(60)) {
		t.Errorf("prompt 3: number %d, deadline %v", p.Number, p.Deadline)
	}
}

func TestPromptRemindersAndExpiry(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a1"), t0)
	p := e.Pending()[0]

	steps := []struct {
		at   float64
		want []string // new deliveries
		next float64  // NextDeadline after
	}{
		{at: 29.9, next: 30},
		{at: 30, want: []string{"prompt-reminder s/1"}, next: 54},
		{at: 53, next: 54},
		{at: 54, want: []string{"prompt-reminder s/1"}, next: 60},
		{at: 59.999, next: 60},
		{at: 60, want: []string{"prompt-expired s/1"}},
		{at: 90},
	}
	for _, st := range steps {
		r.reset()
		e.Tick(at(st.at))
		if got := kinds(r); !equal(got, st.want) {
			t.Fatalf("Tick at %gs: delivered %v, want %v", st.at, got, st.want)
		}
		if rs := r.deliveries(KindPromptReminder); len(rs) == 1 && rs[0].Reminder != map[float64]int{30: 1, 54: 2}[st.at] {
			t.Fatalf("Tick at %gs: reminder number %d", st.at, rs[0].Reminder)
		}
		next := e.NextDeadline()
		if st.next == 0 && !next.IsZero() || st.next != 0 && !next.Equal(at(st.next)) {
			t.Fatalf("after Tick at %gs: NextDeadline = %v, want %gs", st.at, next, st.next)
		}
	}
	if p.State != PromptExpired || len(e.Pending()) != 0 {
		t.Fatalf("state %v, pending %v", p.State, e.Pending())
	}
}

func TestPromptOneReminderWhenTickIsLate(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(confirmation("s", -1, "a1"), t0)
	e.Tick(at(55))
	e.Tick(at(56))
	if got := kinds(r); !equal(got, []string{"event s/awaiting.confirmation", "prompt-reminder s/awaiting.confirmation"}) {
		t.Fatalf("delivered %v", got)
	}
}

func TestHandleExpiresPrompts(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 1, "a1"), t0)
	r.reset()
	e.Handle(ev("s", 2, "progress.updated"), at(61)) // no Tick in between
	if got, want := kinds(r), []string{"prompt-expired s/1", "event s/2"}; !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}

func TestPromptCancelled(t *testing.T) {
	tests := []struct {
		name   string
		event  *protocol.Event
		cancel bool
	}{
		{"session completed", ev("s", 3, "session.completed"), true},
		{"session cancelled", ev("s", 3, "session.cancelled"), true},
		{"session errored", ev("s", 3, "session.errored"), true},
		{"thinking on while it waits", with(ev("s", 3, "state.changed"), func(e *protocol.Event) { e.ToState = "thinking" }), false},
		{"deciding on while it waits", with(ev("s", 3, "state.changed"), func(e *protocol.Event) { e.ToState = "deciding" }), false},
		{"on to calling a tool", with(ev("s", 3, "state.changed"), func(e *protocol.Event) { e.ToState = "calling_tool" }), false},
		{"progress", ev("s", 3, "progress.updated"), false},
		{"other session ends", ev("t", -1, "session.completed"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{})
			e.Handle(ev("s", 0, "session.started"), t0)
			e.Handle(confirmation("s", 1, "a1"), t0)
			e.Handle(clarification("s", 2, "a2"), t0)
			r.reset()
			e.Handle(tt.event, at(1))
			want := []string{"event " + tt.event.EventID}
			if tt.cancel {
				want = []string{"prompt-cancelled s/1", "prompt-cancelled s/2", "event " + tt.event.EventID}
			}
			if got := kinds(r); !equal(got, want) {
				t.Fatalf("delivered %v, want %v", got, want)
			}
			if got := len(e.Pending()); tt.cancel && got != 0 || !tt.cancel && got != 2 {
				t.Fatalf("%d prompts pending", got)
			}
			if tt.cancel {
				if p := r.deliveries(KindPromptCancelled)[0].Prompt; p.State != PromptCancelled || p.Number != 1 {
					t.Fatalf("cancelled prompt: %+v", *p)
				}
			}
		})
	}
}

func TestPromptNotCancelledByAnEarlierEvent(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(confirmation("s", 2, "a2"), t0) // critical: delivered while 1 is missing
	e.Tick(at(1))                            // 1 is given up
	thinking := with(ev("s", 1, "state.changed"), func(e *protocol.Event) { e.ToState = "thinking" })
	e.Handle(thinking, at(2)) // the agent was thinking before it asked
	if len(r.deliveries(KindPromptCancelled)) != 0 || len(e.Pending()) != 1 {
		t.Fatalf("delivered %v", kinds(r))
	}
}

// A prompt that comes late, after later events of its session that did
// not leave awaiting_input, was settled by none of them: it is offered.
func TestLatePromptNotSettledByUnrelatedEvents(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(ev("s", 2, "progress.updated"), t0)
	e.Handle(stateChanged(3, "calling_tool", "thinking", ""), t0)
	e.Tick(at(1)) // 1 is given up
	r.reset()
	e.Handle(confirmation("s", 1, "a1"), at(1))
	if len(r.deliveries(KindPromptStale)) != 0 || len(e.Pending()) != 1 {
		t.Fatalf("delivered %v, want the prompt offered", kinds(r))
	}
}

func TestPromptStale(t *testing.T) {
	tests := []struct {
		name   string
		before []*protocol.Event
		prompt *protocol.Event
	}{
		{
			name: "deadline passed before it arrived",
			prompt: with(confirmation("s", -1, "a1"), func(e *protocol.Event) {
				e.Timestamp = t0.Add(-2 * time.Minute)
			}),
		},
		{
			name:   "session already ended",
			before: []*protocol.Event{ev("s", 0, "session.started"), ev("s", 1, "session.completed")},
			prompt: clarification("s", -1, "a1"),
		},
		{
			name:   "a later event of its session left awaiting_input",
			before: []*protocol.Event{ev("s", 0, "session.started"), stateChanged(2, "awaiting_input", "thinking", "")},
			prompt: confirmation("s", 1, "a1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, r := newTest(Config{ReorderWait: wait})
			for _, b := range tt.before {
				e.Handle(b, t0)
			}
			e.Tick(at(1))
			r.reset()
			e.Handle(tt.prompt, at(1))
			ds := r.deliveries(KindPromptStale)
			if len(ds) != 1 || len(r.deliveries(KindEvent)) != 0 {
				t.Fatalf("delivered %v, want one stale prompt", kinds(r))
			}
			if p := ds[0].Prompt; p == nil || p.State != PromptStale || p.Number != 0 || p.Event != tt.prompt {
				t.Fatalf("stale prompt: %+v", p)
			}
			if len(e.Pending()) != 0 {
				t.Fatal("a stale prompt is pending")
			}
			if !e.NextDeadline().IsZero() {
				t.Fatal("a stale prompt is scheduled")
			}
		})
	}
}

func TestPromptReusedToken(t *testing.T) {
	e, r := newTest(Config{})
	e.Handle(confirmation("s", -1, "same"), t0)
	again := confirmation("s", -1, "same")
	again.EventID = "s/again"
	e.Handle(again, t0)
	// Both pending: neither is offered, and the user is told (a critical
	// line; it used to be a diagnostic, with both offered).
	if w := r.deliveries(KindSafetyWarning); len(w) != 1 || !strings.Contains(w[0].Note, "reusing reply tokens") {
		t.Fatalf("deliveries: %s", r.dump())
	}
	if len(e.Pending()) != 0 {
		t.Fatal("a prompt with a reused token is offered")
	}
	// Reused after the first was withdrawn: offered, with a diagnostic.
	e.Handle(ev("s", -1, "session.completed"), t0)
	third := confirmation("t", -1, "same")
	third.EventID = "t/again"
	e.Handle(third, t0)
	if d := r.diags("lifecycle"); len(d) != 3 || !strings.Contains(d[2].Message, "reuses the reply token") {
		t.Fatalf("diagnostics: %s", r.dump()) // the others are about the missing session.started
	}
	if len(e.Pending()) != 1 {
		t.Fatal("a prompt reusing the token of a withdrawn one is not offered")
	}
}

func TestEndExpiresPending(t *testing.T) {
	e, r := newTest(Config{ReorderWait: wait})
	e.Handle(ev("s", 0, "session.started"), t0)
	e.Handle(ev("s", 5, "progress.updated"), t0) // held, numbered after the confirmation
	e.Handle(confirmation("s", 3, "a3"), t0)
	e.Handle(clarification("t", -1, "b1"), t0)
	r.reset()
	e.End(at(1), EndClosed)
	want := []string{"event s/5", "prompt-expired s/3", "prompt-expired t/awaiting.clarification"}
	if got := kinds(r); !equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if len(e.Pending()) != 0 || !e.NextDeadline().IsZero() {
		t.Fatal("work is left after End")
	}
}

func TestPromptNumbersKeepGrowing(t *testing.T) {
	e, _ := newTest(Config{})
	for i, sess := range []string{"s0", "s1", "s2"} {
		e.Handle(confirmation(sess, -1, "a"+sess), t0)
		e.Handle(ev(sess, -1, "session.completed"), t0) // cancels it
		if p := e.recent[len(e.recent)-1]; p.Number != i+1 || p.State != PromptCancelled {
			t.Fatalf("prompt %d: number %d, state %v", i+1, p.Number, p.State)
		}
	}
}
