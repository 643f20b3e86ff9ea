package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/aaep-term/aaep-term/internal/spectest"
	"github.com/aaep-term/aaep-term/protocol"
)

// validReply checks body against the official reply schemas.
func validReply(t *testing.T, body []byte) {
	t.Helper()
	o := spectest.LoadOfficial(t, spectest.Dir(t))
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("reply is not JSON: %v\n%s", err, body)
	}
	if err := o.Validate(v); err != nil {
		t.Fatalf("reply breaks the official schema: %v\n%s", err, body)
	}
}

// decidedAt is when the user decides in these tests: not in UTC, with
// milliseconds, to check the timestamp's form.
var decidedAt = time.Date(2026, 6, 30, 16, 22, 5, 123456789, time.FixedZone("CEST", 2*3600))

func promptEngine(t *testing.T, evs ...*protocol.Event) (*Engine, *recorder) {
	t.Helper()
	e, r := newTest(Config{DecidedBy: "user:folake"})
	e.SetSubscriptionID("sub_8a4f2c9d1e7b5f3a")
	for _, x := range evs {
		e.Handle(x, decidedAt.Add(-5*time.Second))
	}
	return e, r
}

func TestConfirmBody(t *testing.T) {
	e, r := promptEngine(t, confirmation("s", -1, "4f8a2e7d9c1b6a3f"))
	reply, err := e.Confirm(1, protocol.DecisionAccept, decidedAt)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"confirmation.reply","reply_token":"rpl_4f8a2e7d9c1b6a3f","decision":"accept",` +
		`"subscription_id":"sub_8a4f2c9d1e7b5f3a","timestamp":"2026-06-30T14:22:05.123Z","decided_by":"user:folake"}`
	if string(reply.Body) != want {
		t.Fatalf("body\n%s\nwant\n%s", reply.Body, want)
	}
	validReply(t, reply.Body)
	if reply.Prompt.State != PromptPending || len(e.Pending()) != 1 {
		t.Fatal("Confirm settled the prompt before it was sent")
	}

	r.reset()
	e.Sent(reply, decidedAt)
	ds := r.deliveries(KindReplySent)
	if len(ds) != 1 || ds[0].Prompt != reply.Prompt || !bytes.Equal(ds[0].Reply, reply.Body) || ds[0].Event != reply.Prompt.Event {
		t.Fatalf("deliveries after Sent: %v", kinds(r))
	}
	if reply.Prompt.State != PromptAnswered || len(e.Pending()) != 0 || !e.NextDeadline().IsZero() {
		t.Fatalf("after Sent: state %v, %d pending", reply.Prompt.State, len(e.Pending()))
	}
	if _, err := e.Confirm(1, protocol.DecisionReject, decidedAt); err == nil || err.Error() != "Prompt 1 is already answered." {
		t.Fatalf("second answer: %v", err)
	}
}

// A reason typed with the decision travels as decision_rationale, within
// the schema's length; a longer one is refused and nothing is built.
func TestConfirmBecause(t *testing.T) {
	e, _ := promptEngine(t, confirmation("s", -1, "4f8a2e7d9c1b6a3f"))
	reply, err := e.ConfirmBecause(1, protocol.DecisionReject, "user:folake", "  I want to pay a smaller amount first. ", decidedAt)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(reply.Body, []byte(`"decision_rationale":"I want to pay a smaller amount first."`)) {
		t.Fatalf("body lacks the reason: %s", reply.Body)
	}
	validReply(t, reply.Body)
	if _, err := e.ConfirmBecause(1, protocol.DecisionReject, "user:folake", strings.Repeat("é", maxRationale+1), decidedAt); err == nil ||
		!strings.Contains(err.Error(), "at most 4096") {
		t.Fatalf("an over-long reason: %v", err)
	}
	if plain, _ := e.Confirm(1, protocol.DecisionAccept, decidedAt); bytes.Contains(plain.Body, []byte("decision_rationale")) {
		t.Errorf("a reply without a reason carries one: %s", plain.Body)
	}
}

func TestConfirmWithoutSubscriptionOrDecider(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(confirmation("s", -1, "abc"), t0)
	reply, err := e.Confirm(1, protocol.DecisionReject, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"confirmation.reply","reply_token":"rpl_abc","decision":"reject","timestamp":"2026-06-30T14:22:00.000Z"}`
	if string(reply.Body) != want {
		t.Fatalf("body\n%s\nwant\n%s", reply.Body, want)
	}
	// The official schema requires subscription_id: the check above is
	// what a listener without a handshake sends, and the validator sees it.
	o := spectest.LoadOfficial(t, spectest.Dir(t))
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(reply.Body))
	if err != nil {
		t.Fatal(err)
	}
	if o.Validate(v) == nil {
		t.Fatal("the schema check accepts a reply without subscription_id")
	}
}

func TestConfirmRefused(t *testing.T) {
	onlyReject := confirmation("s", 1, "b")
	onlyReject.AllowedReplies = []string{protocol.DecisionReject}
	noDefault := confirmation("s", 5, "f")
	noDefault.DefaultDecision = ""
	e, _ := promptEngine(t,
		ev("s", 0, "session.started"),
		onlyReject,                             // 1
		clarification("s", 2, "c", "freetext"), // 2
		confirmation("s", 3, "d"),              // 3, expires
		confirmation("t", -1, "e"),             // 4, withdrawn
		noDefault,                              // 5, expires
	)
	e.Handle(ev("t", -1, "session.cancelled"), decidedAt.Add(-4*time.Second))
	tests := []struct {
		name     string
		n        int
		decision string
		now      time.Time
		want     string
	}{
		{"not allowed", 1, protocol.DecisionAccept, decidedAt, "Prompt 1 does not offer accept; its answers are: reject."},
		{"a question", 2, protocol.DecisionAccept, decidedAt, "Prompt 2 asks a question; answer it with: answer 2 TEXT."},
		{"deadline passed before Tick", 1, protocol.DecisionReject, decidedAt.Add(55 * time.Second),
			"Prompt 1 has expired; the default decision (reject) applied."},
		{"withdrawn", 4, protocol.DecisionAccept, decidedAt, "Prompt 4 was withdrawn by the agent; it can no longer be answered."},
		{"unknown", 9, protocol.DecisionAccept, decidedAt, "No prompt 9 is waiting for an answer."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.Confirm(tt.n, tt.decision, tt.now)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}

	e.Tick(decidedAt.Add(56 * time.Second))
	for n, want := range map[int]string{
		3: "Prompt 3 has expired; the default decision (reject) applied.",
		5: "Prompt 5 has expired; the agent's default decision applied.",
		2: "Prompt 2 has expired without an answer.",
	} {
		_, err := e.Confirm(n, protocol.DecisionAccept, decidedAt.Add(56*time.Second))
		if n == 2 {
			_, err = e.Clarify(n, "67", decidedAt.Add(56*time.Second))
		}
		if err == nil || err.Error() != want {
			t.Errorf("prompt %d: error %v, want %q", n, err, want)
		}
	}
}

func TestClarify(t *testing.T) {
	choices := []protocol.Choice{{Value: "62", Label: "Sixty-two"}, {Value: "67", Label: "Sixty-seven"}, {Value: "70", Label: "Seventy"}}
	tests := []struct {
		name    string
		kinds   []string
		choices []protocol.Choice
		dflt    protocol.Text
		input   string
		want    string // the response as JSON, or the error
	}{
		{name: "free text", kinds: []string{"freetext"}, input: "  I want to retire at 67. ", want: `"I want to retire at 67."`},
		{name: "no kinds means free text", input: "at 67", want: `"at 67"`},
		{name: "unknown kinds mean free text", kinds: []string{"drawing"}, input: "at 67", want: `"at 67"`},
		{name: "choice by number", kinds: []string{"multiple_choice"}, choices: choices, input: "2", want: `"67"`},
		{name: "choice by value", kinds: []string{"multiple_choice"}, choices: choices, input: "70", want: `"70"`},
		{name: "choice by label", kinds: []string{"multiple_choice"}, choices: choices, input: "sixty-two", want: `"62"`},
		{name: "not a choice", kinds: []string{"multiple_choice"}, choices: choices, input: "4",
			want: "That is not one of the choices: type a number from 1 to 3 or the value."},
		{name: "choice before number", kinds: []string{"numeric", "multiple_choice"}, choices: choices, input: "3", want: `"70"`},
		{name: "number when no choice fits", kinds: []string{"numeric", "multiple_choice"}, choices: choices, input: "4", want: `4`},
		{name: "yes", kinds: []string{"yes_no"}, input: "Yes", want: `true`},
		{name: "n", kinds: []string{"yes_no"}, input: "n", want: `false`},
		{name: "false", kinds: []string{"yes_no"}, input: "false", want: `false`},
		{name: "accept command on a yes or no question", kinds: []string{"yes_no"}, input: "accept", want: `true`},
		{name: "not yes or no", kinds: []string{"yes_no"}, input: "maybe", want: "That answer does not fit prompt 1: type yes or no."},
		{name: "yes or no before free text", kinds: []string{"freetext", "yes_no"}, input: "y", want: `true`},
		{name: "number", kinds: []string{"numeric"}, input: "1200.5", want: `1200.5`},
		{name: "negative number", kinds: []string{"numeric"}, input: "-3", want: `-3`},
		{name: "not a number", kinds: []string{"numeric"}, input: "twelve", want: "That answer does not fit prompt 1: type a number."},
		{name: "infinity is not a number", kinds: []string{"numeric"}, input: "Inf", want: "That answer does not fit prompt 1: type a number."},
		{name: "yes, no or number", kinds: []string{"yes_no", "numeric"}, input: "what", want: "That answer does not fit prompt 1: type yes or no, or a number."},
		{name: "all but text", kinds: []string{"yes_no", "numeric", "multiple_choice"}, choices: choices, input: "what",
			want: "That answer does not fit prompt 1: type a choice's number from 1 to 3 or its value, yes or no, or a number."},
		{name: "choice kind without choices is free text", kinds: []string{"multiple_choice"}, input: "blue", want: `"blue"`},
		{name: "empty", kinds: []string{"freetext"}, input: "  ", want: "Type an answer for prompt 1, for example: answer 1 TEXT."},
		{name: "empty with a default", kinds: []string{"freetext"}, dflt: "67", input: "",
			want: "Type an answer for prompt 1; if you give none, the agent uses its default: 67."},
		{name: "too long", kinds: []string{"freetext"}, input: strings.Repeat("x", maxAnswer+1),
			want: "Your answer is too long: 16385 bytes; the limit is 16384."},
		{name: "longest", kinds: []string{"freetext"}, input: strings.Repeat("x", maxAnswer), want: `"` + strings.Repeat("x", maxAnswer) + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clarification("s", -1, "2c8e4a9f7b1d3a6e", tt.kinds...)
			c.Choices = tt.choices
			c.DefaultResponse, c.HasDefaultResponse = tt.dflt, tt.dflt != ""
			e, _ := promptEngine(t, c)
			reply, err := e.Clarify(1, tt.input, decidedAt)
			if err != nil {
				if err.Error() != tt.want {
					t.Fatalf("error %q, want %s", err, tt.want)
				}
				return
			}
			var msg struct {
				Response json.RawMessage `json:"response"`
			}
			if err := json.Unmarshal(reply.Body, &msg); err != nil {
				t.Fatal(err)
			}
			if string(msg.Response) != tt.want {
				t.Fatalf("response %s, want %s", msg.Response, tt.want)
			}
			validReply(t, reply.Body)
			if !strings.HasPrefix(string(reply.Body), `{"type":"clarification.reply","reply_token":"rpl_2c8e4a9f7b1d3a6e","response":`) ||
				!strings.HasSuffix(string(reply.Body), `,"subscription_id":"sub_8a4f2c9d1e7b5f3a","timestamp":"2026-06-30T14:22:05.123Z","decided_by":"user:folake"}`) {
				t.Fatalf("body %s", reply.Body)
			}
		})
	}
}

func TestClarifyAConfirmation(t *testing.T) {
	e, _ := promptEngine(t, confirmation("s", -1, "a"))
	_, err := e.Clarify(1, "yes", decidedAt)
	if want := "Prompt 1 asks for a decision; answer it with: accept 1, or reject 1."; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestSentAfterExpiry(t *testing.T) {
	e, r := promptEngine(t, confirmation("s", -1, "a"))
	reply, err := e.Confirm(1, protocol.DecisionAccept, decidedAt)
	if err != nil {
		t.Fatal(err)
	}
	e.Tick(decidedAt.Add(time.Hour))
	e.Sent(reply, decidedAt.Add(time.Hour))
	if reply.Prompt.State != PromptExpired {
		t.Fatalf("state %v: an expired prompt does not become answered", reply.Prompt.State)
	}
	if len(r.deliveries(KindReplySent)) != 1 {
		t.Fatal("the user is not told the reply went out")
	}
}

// A producer that reuses a reply token gets one answer for it, not two.
func TestReusedTokenAnsweredOnce(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(confirmation("s", -1, "same"), t0)
	r, err := e.Confirm(1, protocol.DecisionAccept, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.Sent(r, t0)
	// While both were pending neither could be answered
	// (TestReusedTokenNeitherOffered); once the first is answered, the
	// second is not offered.
	second := confirmation("t", -1, "same")
	second.Producer.AgentID = "another-agent" // same back channel, same token
	e.Handle(second, t0)
	if _, err := e.Confirm(2, protocol.DecisionAccept, t0); err == nil || !strings.Contains(err.Error(), "already answered") {
		t.Fatalf("the reused token was answered again: %v", err)
	}
}

func TestWhyNot(t *testing.T) {
	e, _ := newTest(Config{})
	e.Handle(confirmation("s", -1, "a"), t0)
	e.Handle(confirmation("t", -1, "b"), t0)
	r, err := e.Confirm(1, protocol.DecisionReject, t0)
	if err != nil {
		t.Fatal(err)
	}
	e.Sent(r, t0)
	for n, want := range map[int]string{1: "Prompt 1 is already answered.", 2: "", 3: "No prompt 3 is waiting for an answer."} {
		err := e.WhyNot(n, t0)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("WhyNot(%d) = %v, want %q", n, err, want)
		}
	}
	if err := e.WhyNot(2, at(61)); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("WhyNot after the deadline = %v", err)
	}
}
