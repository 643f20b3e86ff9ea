package outputs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/braille/brltest"
	"github.com/aaep-term/aaep-term/command"
	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
)

// A real speech-dispatcher hears who speaks once several agents are
// watched: the name when it changes, always before a critical prompt, and
// nothing added while one agent is.
func TestSpeechSaysWhoSpeaks(t *testing.T) {
	t.Parallel()
	d := speechdtest.Start(t, "")
	var notes []string
	s := Open(context.Background(), Options{Speech: "speechd", ClientName: "user:aaep-listen:test",
		Pace:   announce.PaceConfig{WPM: 100000},
		Getenv: func(k string) string { return map[string]string{"SPEECHD_ADDRESS": d.Address()}[k] }},
		func(n string) { notes = append(notes, n) })
	defer s.Close()
	if len(s.List) != 1 {
		t.Fatalf("no speech: %q", notes)
	}
	say := func(agent string, pr announce.Priority, kind, text string) {
		an := announce.Announcement{Agent: agent, AgentID: agent, Priority: pr, Kind: kind, Lang: "en"}
		an.Text, an.Theirs = protocol.SplitTheirs(text)
		if an.Theirs == nil {
			an.Theirs = []protocol.Span{}
		}
		if err := s.List[0].Announce(an); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	step := func(agent string, pr announce.Priority, kind, text, heard string) {
		t.Helper()
		say(agent, pr, kind, text)
		want = append(want, heard)
		got := d.WaitSpoken(t, len(want), 10*time.Second)
		if len(got) < len(want) || words(got[len(want)-1]) != words(heard) {
			t.Fatalf("spoken %q, want %q last", got, heard)
		}
	}
	step("mail", announce.Normal, "tool", "Using search.", "Using search.") // one agent: as before
	s.SayAgents(true)                                                       // a second agent came
	step("mail", announce.Normal, "tool", "Using fetch.", "mail: Using fetch.")
	step("mail", announce.Normal, "tool-done", "Finished fetch.", "Finished fetch.")
	step("code", announce.Normal, "tool", "Using make.", "code: Using make.")
	step("code", announce.Critical, "confirmation", "Confirm deleting the build?", "code: Confirm deleting the build?")
	step("mail", announce.Normal, "tool", "Using send.", "mail: Using send.")
}

// words is s in lower case letters and spaces only: the capture module
// reads punctuation as it likes.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !('a' <= r && r <= 'z')
	}), " ")
}

// A real braille display shows who asks before a prompt, after the answer
// words, and its routing keys still answer the prompt.
func TestBrailleShowsWhoAsks(t *testing.T) {
	t.Parallel()
	b := brltest.Start(t, 40, "")
	var notes []string
	s := Open(context.Background(), Options{Braille: "auto", BrlAPIHost: b.Host, Pace: announce.PaceConfig{SayAgents: true},
		Getenv: func(k string) string { return map[string]string{"BRLAPI_AUTH": "none"}[k] }},
		func(n string) { notes = append(notes, n) })
	defer s.Close()
	if s.Answers == nil {
		t.Fatalf("no braille: %q", notes)
	}
	an := announce.Announcement{Agent: "code", AgentID: "code", Priority: announce.Critical, Kind: "confirmation",
		Text: "Confirm it?", Theirs: []protocol.Span{}, Prompt: &session.Prompt{Number: 1}}
	if err := s.List[0].Announce(an); err != nil {
		t.Fatal(err)
	}
	b.WaitVisual(t, "the prompt, named", func(v string) bool { return strings.HasPrefix(v, "#1 accept reject code: Confirm it?") })
	b.Press(t, "ROUTE 4") // over "accept"
	select {
	case c := <-s.Answers:
		if c.Verb != command.VerbAccept || c.Prompt != 1 {
			t.Fatalf("routing key gave %+v, want accept 1", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the routing key answered nothing")
	}
}
