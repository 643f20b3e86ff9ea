package line

import (
	"bytes"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

func TestRightToLeftIsIsolated(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		an   announce.Announcement
		want string
	}{
		{"latin", announce.Announcement{Agent: "Ada", Text: "Done."}, "12:00:00 Ada: Done.\n"},
		{"declared rtl", announce.Announcement{Agent: "Ada", Text: "Done 42.", RTL: true}, "12:00:00 Ada: \u2068Done 42.\u2069\n"},
		{"arabic in ltr text", announce.Announcement{Agent: "Ada", Text: "Sent to مريم today."}, "12:00:00 Ada: \u2068Sent to مريم today.\u2069\n"},
		{"hebrew agent name", announce.Announcement{Agent: "עוזר", Text: "Done."}, "12:00:00 \u2068עוזר\u2069: Done.\n"},
		{"hostile override stripped, then isolated", announce.Announcement{Agent: "Ada",
			Text: protocol.Text("\u202eשלום\u2066 x").String(), RTL: true}, "12:00:00 Ada: \u2068שלום x\u2069\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
		tt.an.At = at
		if err := w.Announce(tt.an); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if got := out.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLabelsOutsideIsolates: our English labels stand outside the isolate of
// the producer's right-to-left words, and only those words are isolated.
func TestLabelsOutsideIsolates(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	prod := protocol.Producer{AgentID: "a1", AgentName: "مساعد"}
	tests := []struct {
		name string
		ev   *protocol.Event
		want string
	}{
		{"finished", &protocol.Event{Type: protocol.TypeSessionCompleted, SessionID: "s", Producer: prod, SummaryNormal: "اكتملت المهمة."},
			"12:00:00 \u2068مساعد\u2069: Finished: \u2068اكتملت المهمة.\u2069\n"},
		{"error with hint", &protocol.Event{Type: protocol.TypeSessionErrored, SessionID: "s", Producer: prod, ErrorCategory: "requires_user", RemediationHint: "היכנס שוב"},
			"12:00:00 CRITICAL \u2068مساعد\u2069: Error: the agent stopped because of an error. This needs you. What you can do: \u2068היכנס שוב\u2069.\n"},
		{"declared rtl, latin words", &protocol.Event{Type: protocol.TypeSessionCompleted, SessionID: "s", Producer: prod, SummaryNormal: "Done 42.",
			Localization: protocol.LocalizationHints{TextDirection: "rtl"}},
			"12:00:00 \u2068مساعد\u2069: Finished: \u2068Done 42.\u2069\n"},
		{"latin stays bare", &protocol.Event{Type: protocol.TypeSessionCompleted, SessionID: "s", Producer: protocol.Producer{AgentID: "a1", AgentName: "Ada"}, SummaryNormal: "Done."},
			"12:00:00 Ada: Finished: Done.\n"},
		{"question", &protocol.Event{Type: protocol.TypeAwaitingClarify, SessionID: "s", Producer: prod, Question: "באיזו שעה?"},
			"12:00:00 CRITICAL \u2068مساعد\u2069: Question, prompt 0: \u2068באיזו שעה?\u2069 Time to answer: the time the agent allows.\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
		announce.New(announce.Config{}, w).Deliver(session.Delivery{At: at, Event: tt.ev})
		w.Flush()
		if got := out.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestSayIsolatesTheirs: a producer's name in a line of ours ("Subscribed
// to …") is isolated, the words around it are not; a producer cannot bring
// marks of its own.
func TestSayIsolatesTheirs(t *testing.T) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct{ name, want string }{
		{"مساعد العرض", "12:00:00 Subscribed to \u2068مساعد العرض\u2069.\n"},
		{"Demo", "12:00:00 Subscribed to Demo.\n"},
		{"\u2069\u202eעוזר\u2068", "12:00:00 Subscribed to \u2068עוזר\u2069.\n"},
	} {
		var out bytes.Buffer
		w := NewWriter(&out, nil, WriterOptions{Location: time.UTC})
		if err := w.Say(at, "Subscribed to "+protocol.Theirs(protocol.Sanitize(tt.name))+"."); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// hasRTL answers as protocol.HasRTL does, wherever the first letter
// beyond ASCII stands.
func TestHasRTLAgrees(t *testing.T) {
	for _, s := range []string{"", "a", "Load test progress: 12345.", "שלום", "abcdefgh שלום", "abcdefghijklmnop é",
		"abcdefghijklmnopq\u0627", "abc\u0627", "abcdefg\u05d0", "é and then ascii only", "𞤀 adlam", "abcdefgh𞤀"} {
		if got, want := hasRTL(s), protocol.HasRTL(s); got != want {
			t.Errorf("hasRTL(%q) = %v, protocol.HasRTL says %v", s, got, want)
		}
	}
}
