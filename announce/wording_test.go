package announce_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/line"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

var update = flag.Bool("update", false, "rewrite testdata/wording.golden")

// wordingEvents is one representative event per type and per way a
// producer can fill it: with its own summary ending in each mark a person
// may write (".", "?", "!", "…", a quote), and with no summary at all, so
// that our own sentence is built from its fields.
func wordingEvents() []*protocol.Event {
	prod := protocol.Producer{AgentID: "demo", AgentName: "Demo"}
	f := false
	tr := true
	base := func(typ string) *protocol.Event {
		return &protocol.Event{Type: typ, SessionID: "s1", Producer: prod}
	}
	var evs []*protocol.Event
	add := func(ev *protocol.Event) { evs = append(evs, ev) }
	for _, end := range []string{"", ".", "?", "!", "…", "\""} {
		text := func(s string) protocol.Text {
			if end == "\"" {
				return protocol.Text(`She said "` + s + `."`)
			}
			return protocol.Text(s + end)
		}
		ev := base(protocol.TypeSessionStarted)
		ev.RequestText = text("Book a table")
		add(ev)
		ev = base(protocol.TypeSessionCompleted)
		ev.OutputSummary = text("The table is booked")
		add(ev)
		for _, cat := range []string{"", "transient", "permanent", "requires_user", "unknown"} {
			ev = base(protocol.TypeSessionErrored)
			ev.ErrorCategory = cat
			ev.RemediationHint = text("Sign in again")
			add(ev)
		}
		for _, by := range []string{"", "user", "producer", "timeout", "system"} {
			ev = base(protocol.TypeSessionCancelled)
			ev.CancelledBy = by
			ev.PartialResult = text("Two of three tables checked")
			add(ev)
		}
		ev = base(protocol.TypeProgressUpdated)
		ev.Progress = protocol.Progress{HasPercent: true, Percent: 50, Step: 1, TotalSteps: 2, Description: text("Halfway")}
		add(ev)
		ev = base(protocol.TypeToolInvoked)
		ev.Tool, ev.ArgsSummary, ev.RiskLevel, ev.Irreversible = "send_money", text("86.40 euros to Lisbon Energy"), "high", &tr
		add(ev)
		for _, st := range []string{"success", "error", "timeout"} {
			ev = base(protocol.TypeToolCompleted)
			ev.Tool, ev.Status, ev.ErrorMessage = "send_money", st, text("The bank said no")
			add(ev)
		}
		ev = base(protocol.TypeAwaitingConfirmation)
		ev.Action, ev.Consequence, ev.RiskLevel, ev.Irreversible, ev.DefaultDecision, ev.TimeoutSeconds =
			text("Transfer 86.40 euros to Lisbon Energy"), text("The money leaves at once"), "high", &f, "reject", 60
		add(ev)
		ev = base(protocol.TypeAwaitingClarify)
		ev.Question, ev.ClarifyContext, ev.TimeoutSeconds = text("Which time should I book the table for"), text("Three tables are free"), 90
		ev.Choices = []protocol.Choice{{Label: text("Seven"), Value: "19:00"}, {Label: "Eight", Value: "20:00"}}
		ev.DefaultResponse, ev.HasDefaultResponse = "20:00", true
		add(ev)
		for _, kind := range []string{"", "human", "specialist_agent", "escalation_queue"} {
			ev = base(protocol.TypeHandoffRequested)
			ev.TargetKind, ev.Reason = kind, text("A person must sign")
			add(ev)
		}
		ev = base(protocol.TypeOutputStreaming)
		ev.Chunk, ev.Complete, ev.OutputID = text("Tomorrow will be sunny"), true, "o"+end
		add(ev)
		if end != "" {
			for _, typ := range []string{protocol.TypeSessionCompleted, protocol.TypeSessionErrored, protocol.TypeStateChanged, protocol.TypeToolInvoked, "aaep:x.custom.thing"} {
				ev = base(typ)
				ev.SummaryNormal = text("In its own words")
				ev.ToState, ev.Tool = "thinking", "lookup"
				add(ev)
			}
		}
	}
	for _, st := range []string{"idle", "thinking", "calling_tool", "writing_output", "awaiting_input", "deciding", "handing_off", "dreaming"} {
		ev := base(protocol.TypeStateChanged)
		ev.ToState = st
		evs = append(evs, ev)
	}
	// A producer's summary that says again what its fields say: each
	// sentence is said once.
	ev := base(protocol.TypeAwaitingConfirmation)
	ev.Action, ev.Consequence, ev.RiskLevel, ev.Irreversible, ev.DefaultDecision, ev.TimeoutSeconds =
		"Pay the bill", "The money leaves at once. A transfer cannot be called back", "high", &tr, "reject", 120
	ev.SummaryNormal = "Please confirm: pay the bill now? This cannot be undone. The money leaves at once."
	ev.ExtraContext = []byte(`{"bill_id":"B-17","amount":{"value":86.4,"currency":"EUR"},"due":"Friday","paid":false,"lines":["power","tax"],"note":null}`)
	evs = append(evs, ev)
	ev = base(protocol.TypeToolInvoked) // a tool with neither name nor words
	evs = append(evs, ev)
	ev = base(protocol.TypeToolCompleted)
	evs = append(evs, ev)
	ev = base("aaep:x.custom.thing")
	evs = append(evs, ev)
	return evs
}

// wordingLines announces every event above, and every kind of prompt
// delivery for a confirmation and a question, through the plain line
// writer, and returns the lines a person would hear.
func wordingLines(t *testing.T) []string {
	t.Helper()
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	w := line.NewWriter(&out, nil, line.WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{}, w)
	evs := wordingEvents()
	for _, ev := range evs {
		d := session.Delivery{At: at, Kind: session.KindEvent, Event: ev}
		if ev.Type == protocol.TypeAwaitingConfirmation || ev.Type == protocol.TypeAwaitingClarify {
			d.Prompt = &session.Prompt{Number: 1, Event: ev, Deadline: at.Add(time.Minute), State: session.PromptPending}
		}
		a.Deliver(d)
	}
	a.Flush(at)
	kinds := []session.DeliveryKind{session.KindPromptExpired, session.KindPromptCancelled, session.KindPromptStale,
		session.KindPromptReminder, session.KindReplySent, session.KindPromptResolved, session.KindSafetyWarning,
		session.KindPromptNotOffered, session.KindPromptLeft}
	for _, ev := range evs {
		if ev.Type != protocol.TypeAwaitingConfirmation && ev.Type != protocol.TypeAwaitingClarify {
			continue
		}
		for _, k := range kinds {
			// A reminder is the first or the last; an expired or left
			// prompt is told for each cause of its end.
			variants := []int{1}
			switch k {
			case session.KindPromptReminder:
				variants = []int{1, 2}
			case session.KindPromptExpired, session.KindPromptLeft:
				variants = []int{0, 1, 2, 3, 4}
			}
			for _, v := range variants {
				d := session.Delivery{At: at, Kind: k, Event: ev, Reminder: v, Cause: session.Cause(v),
					Prompt: &session.Prompt{Number: 3, Event: ev, Deadline: at.Add(30 * time.Second)},
					Note:   "The agent went on."}
				switch k {
				case session.KindReplySent:
					d.Reply = []byte(`{"type":"confirmation.reply","decision":"reject","decision_rationale":"too expensive."}`)
					if ev.Type == protocol.TypeAwaitingClarify {
						d.Reply = []byte(`{"type":"clarification.reply","response":"20:00"}`)
					}
				case session.KindSafetyWarning:
					d.Note = "Tool send money was started although prompt 3 was rejected."
				case session.KindPromptNotOffered:
					d.Note = "Prompt 3 cannot be answered: its reply token is also on prompt 2."
				}
				a.Deliver(d)
			}
		}
	}
	w.Flush()
	// What line mode's details and pending commands say of each prompt,
	// and of those waiting when an answer goes nowhere.
	var waiting []*session.Prompt
	for _, ev := range evs {
		if ev.Type == protocol.TypeAwaitingConfirmation || ev.Type == protocol.TypeAwaitingClarify {
			p := &session.Prompt{Number: len(waiting) + 1, Event: ev, Deadline: at.Add(time.Minute)}
			waiting = append(waiting, p)
			_ = w.Say(at, announce.PromptDetails(p, at))
			_ = w.Say(at, announce.PendingLine(p, at))
			_ = w.Say(at, "No prompt 9 is waiting for an answer."+announce.PendingSummary([]*session.Prompt{p}))
		}
	}
	_ = w.Say(at, "2 prompts are waiting; say which, for example: accept 1."+announce.PendingSummary(waiting[:2]))
	// What the listener says of terms the producer gives below the request.
	for _, c := range []struct{ req, got protocol.Capabilities }{
		{protocol.Capabilities{}, protocol.Capabilities{MaxEventsPerSecond: 1}},
		{protocol.Capabilities{MaxEventsPerSecond: 10}, protocol.Capabilities{MaxEventsPerSecond: 2}},
		{protocol.Capabilities{PreferredVerbosity: "detailed", CognitiveLoad: "low"}, protocol.Capabilities{PreferredVerbosity: "normal", CognitiveLoad: "standard"}},
		{protocol.Capabilities{Languages: []string{"en-US", "ar-SA"}}, protocol.Capabilities{Languages: []string{"en-US"}}},
		{protocol.Capabilities{CoalesceBoundaries: []string{"sentence", "paragraph", "completion"}}, protocol.Capabilities{CoalesceBoundaries: []string{"sentence", "completion"}}},
		{protocol.Capabilities{CoalesceBoundaries: []string{"paragraph"}}, protocol.Capabilities{CoalesceBoundaries: []string{"completion"}}},
	} {
		for _, l := range session.Changes(c.req, c.got) {
			out.WriteString("12:00:00 " + l + "\n")
		}
	}
	var lines []string
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		l = strings.TrimPrefix(l, "12:00:00 ")
		if !seen[l] {
			seen[l] = true
			lines = append(lines, l)
		}
	}
	return lines
}

// stumbles are what a person hearing or reading a line would trip over.
var stumbles = []struct {
	what string
	re   *regexp.Regexp
}{
	{"double punctuation", regexp.MustCompile(`\.\.(?:[^.]|$)|[?!…:;,]\.|\.[?!;,]|[.?!]\s*[.?!]\s`)},
	{"an empty label", regexp.MustCompile(`:\s*[.:;,]|:\s*$|\(\s*\)`)},
	{"1 with a plural", regexp.MustCompile(`(?:^|[^\d.,])1 (?:seconds|minutes|hours|replies|prompts|events|tools|messages|choices|steps)\b`)},
	{"a plural number with a singular", regexp.MustCompile(`\b(?:0|[2-9]|\d\d+) (?:second|minute|hour|reply|prompt|event|tool|message|choice)\b`)},
	{"a raw type id", regexp.MustCompile(`aaep:|\b[a-z]+_[a-z_]+\b`)},
	{"a format verb", regexp.MustCompile(`%[!a-zA-Z]|\(MISSING\)|<nil>`)},
	{"a space before punctuation", regexp.MustCompile(` [.,;:?!]`)},
	{"a bracket after a sentence's end", regexp.MustCompile(`[.?!…] \(`)},
	{"raw JSON", regexp.MustCompile(`[{\[]\s*"|":\s*[{\["\d]`)},
}

// sentenceSplit cuts a line into sentences, to find one said twice.
var sentenceSplit = regexp.MustCompile(`[.?!…]["”)]*\s+`)

// TestEverySentenceReads reads every line the announcer can say, with the
// producer's text ending in each mark a person writes, and checks it for
// what a person would stumble on. testdata/wording.golden holds them all, to
// be read once by a reviewer (go test -run TestEverySentenceReads -update).
func TestEverySentenceReads(t *testing.T) {
	lines := wordingLines(t)
	for _, l := range lines {
		plain, _ := protocol.SplitTheirs(l)
		for _, s := range stumbles {
			// The producer's own words are theirs to punctuate; only
			// what we put around them is checked for raw identifiers.
			if m := s.re.FindString(plain); m != "" {
				t.Errorf("%s (%q) in: %s", s.what, m, plain)
			}
		}
		said := map[string]bool{}
		for _, s := range sentenceSplit.Split(plain, -1) {
			k := strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".?!…"))
			if len(k) > 12 && said[k] { // not "Yes." twice in a choice list
				t.Errorf("the sentence %q twice in: %s", s, plain)
			}
			said[k] = true
		}
	}
	golden := "testdata/wording.golden"
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("the sentences changed; read the diff of %s (go test -run %s -update):\n%s", golden, t.Name(), firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n want %s\n  got %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
