package line

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s:\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// A whole session in plain lines: the golden file is what a screen reader
// user reads, with the time before each line and, with NoTime (--no-time),
// without it.
func TestPlainSessionGolden(t *testing.T) {
	for _, tt := range []struct {
		suffix string
		noTime bool
	}{{"", false}, {"-notime", true}} {
		t.Run("golden"+tt.suffix, func(t *testing.T) { plainSessionGolden(t, tt.suffix, tt.noTime) })
	}
}

func plainSessionGolden(t *testing.T, suffix string, noTime bool) {
	var out, diag bytes.Buffer
	w := NewWriter(&out, &diag, WriterOptions{Location: time.UTC, NoTime: noTime})
	a := announce.New(announce.Config{}, w)
	at := time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)
	yes := true
	prod := protocol.Producer{AgentID: "bank", AgentName: "Banking Assistant"}
	prompt := &session.Prompt{Number: 1, Deadline: at.Add(5 * time.Minute), State: session.PromptPending}
	events := []session.Delivery{
		{Event: &protocol.Event{Type: protocol.TypeSessionStarted, SummaryNormal: "Banking Assistant is looking at your accounts."}},
		{Event: &protocol.Event{Type: protocol.TypeToolInvoked, Tool: "transfer_funds", SummaryNormal: "Preparing a transfer.", RiskLevel: "high", Irreversible: &yes}},
		{Event: &protocol.Event{Type: protocol.TypeAwaitingConfirmation, Urgency: "critical", Action: "Transfer $500.00 from checking to savings.",
			Consequence: "Funds move at once.", RiskLevel: "high", Irreversible: &yes, DefaultDecision: "reject"}, Prompt: prompt},
		{Event: &protocol.Event{Type: protocol.TypeOutputStreaming, OutputID: "out_1", Chunk: "Done.\nYour savings\tgrew. \x1b[31mRed\x1b[0m ", CoalesceHint: "none"}},
		{Event: &protocol.Event{Type: protocol.TypeSessionErrored, SummaryNormal: "Bank unreachable.", ErrorCategory: "transient"}},
	}
	for i, d := range events {
		d.At = at.Add(time.Duration(i) * time.Second)
		d.Event.Producer = prod
		d.Event.SessionID = "sess_1"
		a.Deliver(d)
	}
	a.Diagnose(session.Diagnostic{At: at, Code: "gap", Message: "Event 4 of session sess_1 never arrived."})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if noTime { // the listener's own lines go the same way
		if err := w.Say(at, "Connection closed."); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "session"+suffix+".golden", out.Bytes())
	golden(t, "diagnostics"+suffix+".golden", diag.Bytes())
	for _, b := range [][]byte{out.Bytes(), diag.Bytes()} {
		if bytes.ContainsAny(b, "\x1b\x07\r\t") {
			t.Errorf("plain output contains control characters: %q", b)
		}
	}
}

func TestColorOnlyAddsToTheWord(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil, WriterOptions{Location: time.UTC, Color: true})
	_ = w.Announce(announce.Announcement{Priority: announce.Critical, Agent: "A", Text: "Stop."})
	if !bytes.Contains(out.Bytes(), []byte("CRITICAL")) {
		t.Errorf("colour replaced the word: %q", out.Bytes())
	}
}

func TestQuietDiagnostics(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil, WriterOptions{})
	if err := w.Diagnostic(session.Diagnostic{Code: "gap", Message: "x"}); err != nil || out.Len() != 0 {
		t.Errorf("diagnostic written with no diagnostics stream: %q, %v", out.Bytes(), err)
	}
}

// Two agents whose names differ only by invisible characters never look
// the same on the line: the invisible ones are shown as codes.
func TestLookalikeAgentsDiffer(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
	a := announce.New(announce.Config{}, w)
	at := time.Date(2026, 6, 30, 14, 22, 11, 0, time.UTC)
	for _, name := range []string{"Bank", "Ba\u200bnk", "Bank\u200d", "\ufeffBank", "Bank\u2060", "Ban\u00adk"} {
		a.Deliver(session.Delivery{At: at, Event: &protocol.Event{Type: protocol.TypeSessionStarted, SessionID: "sess_1",
			Producer: protocol.Producer{AgentID: "bank", AgentName: protocol.Text(name)}, SummaryNormal: "Started."}})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if seen[l] {
			t.Errorf("two different agents printed the same line %q:\n%s", l, out.String())
		}
		seen[l] = true
	}
	if !strings.Contains(out.String(), "Ba<U+200B>nk: ") {
		t.Errorf("the zero-width space is not shown:\n%s", out.String())
	}
}

// A safety warning's rule code (the one aaep-replay check reports) is in its
// --json record, so a program can tell which rule the agent broke.
func TestJSONSafetyWarningRule(t *testing.T) {
	var out bytes.Buffer
	j := NewJSON(&out)
	a := announce.New(announce.Config{}, j)
	ev := &protocol.Event{Type: protocol.TypeToolInvoked, EventID: "evt_1", SessionID: "sess_1", Tool: "wire_money",
		Producer: protocol.Producer{AgentID: "bank"}}
	a.Deliver(session.Delivery{Kind: session.KindSafetyWarning, Event: ev, Rule: protocol.RuleUnconfirmedIrreversible})
	a.Deliver(session.Delivery{Kind: session.KindSafetyWarning, Event: ev, Rule: "x\n\x1b[2Jforged"})
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct{ Kind, Rule string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("record %q: %v", l, err)
		}
		rules = append(rules, r.Rule)
	}
	want := []string{protocol.RuleUnconfirmedIrreversible, protocol.Name("x\n\x1b[2Jforged")}
	if strings.Join(rules, "|") != strings.Join(want, "|") || strings.ContainsAny(rules[1], "\n\x1b") {
		t.Errorf("rules %q, want %q:\n%s", rules, want, out.String())
	}
}

// A replayed prompt is shown with no instruction to answer it: nothing can
// answer a recording. A live one says how.
func TestReplayGivesNoAnswerHint(t *testing.T) {
	prompt := &session.Prompt{Number: 1, State: session.PromptPending}
	for _, tt := range []struct {
		replay bool
		want   string
	}{
		{false, "CRITICAL Bank: Pay? To answer, type: accept 1, or: reject 1.\n"},
		{true, "CRITICAL Bank: Pay?\n"},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{NoTime: true, Replay: tt.replay})
		if err := w.Announce(announce.Announcement{Priority: announce.Critical, Kind: "confirmation", Agent: "Bank", Text: "Pay?", Prompt: prompt}); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("replay %v: got %q, want %q", tt.replay, got, tt.want)
		}
	}
}
