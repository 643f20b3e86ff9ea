package announce

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/protocol"
	"github.com/aaep-term/aaep-term/session"
)

// With SayAgents, speech and braille say who speaks when it changes, and
// always before what is critical; the name is marked as the producer's and
// the producer's words after it stay marked; a one-agent run is unchanged.
func TestSayAgents(t *testing.T) {
	an := func(agent string, pr Priority, kind, text string) Announcement {
		a := Announcement{Agent: agent, AgentID: agent, Priority: pr, Kind: kind}
		a.Text, a.Theirs = protocol.SplitTheirs(text)
		if a.Theirs == nil {
			a.Theirs = []protocol.Span{} // as the Announcer sets it: all ours
		}
		return a
	}
	long := strings.Repeat("x", 200)
	seq := []struct {
		in   Announcement
		want string // text; the producer's words between [ and ]
	}{
		{an("mail", Normal, "tool", "Using search."), "[mail]: Using search."},
		{an("mail", Normal, "tool-done", "Finished search: "+protocol.Theirs("3 hits")+"."), "Finished search: [3 hits]."},
		{an("code", Background, "progress", "Progress: half done."), "[code]: Progress: half done."},
		{an("code", Critical, "confirmation", "Confirm "+protocol.Theirs("rm -rf build")+"?"), "[code]: Confirm [rm -rf build]?"},
		{an("code", Critical, "errored", "Error: it broke."), "[code]: Error: it broke."}, // critical: always
		{an("", Normal, "note", "Connected."), "Connected."},                              // ours: no name, nothing forgotten
		{an("code", Normal, "tool", "Using make."), "Using make."},
		{an("code", Normal, "prompt-reminder", "Prompt 1 still waits."), "[code]: Prompt 1 still waits."},
		{an("evil\nFORGED\x1b[2J", Normal, "tool", "Using x."), "[evil FORGED]: Using x."},
		{an(long, Normal, "tool", "Using y."), "[" + strings.Repeat("x", maxNameClusters-1) + "…]: Using y."},
		{Announcement{Agent: "mail", Priority: Normal, Kind: "output", Text: "Unmarked."}, "[mail]: [Unmarked.]"}, // nil: all theirs, still
		{an("\u05e9\u05dc\u05d5\u05dd", Critical, "handoff", "Hand-off requested."), "[\u05e9\u05dc\u05d5\u05dd]: Hand-off requested."},
	}
	for _, on := range []bool{true, false} {
		p := newPacer(PaceConfig{SayAgents: on})
		now := t0
		for i, tc := range seq {
			p.push(tc.in, now)
			got, ok, _ := p.next(now, false)
			if !ok {
				t.Fatalf("%d: nothing passed on", i)
			}
			now = now.Add(time.Minute) // each said in full before the next
			want := tc.want
			if !on {
				want = marked(tc.in)
			}
			if g := marked(got); g != want {
				t.Errorf("SayAgents %v, %d: %q, want %q", on, i, g, want)
			}
		}
	}
}

// marked is an's text with the producer's words between [ and ].
func marked(an Announcement) string {
	var b strings.Builder
	at := 0
	for _, sp := range an.Theirs {
		if sp.Start < at || sp.End > len(an.Text) || sp.Start > sp.End {
			return "bad span in " + an.Text
		}
		b.WriteString(an.Text[at:sp.Start] + "[" + an.Text[sp.Start:sp.End] + "]")
		at = sp.End
	}
	return b.String() + an.Text[at:]
}

// The name is said when it differs from the last one *said*: a critical
// announcement that overtakes a queued one is named, and so is the queued
// one said after it.
func TestSayAgentsInTheOrderSaid(t *testing.T) {
	p := newPacer(PaceConfig{SayAgents: true})
	p.push(Announcement{Agent: "mail", Priority: Normal, Kind: "tool", Text: "Using one.", Theirs: []protocol.Span{}}, t0)
	var out []string
	take := func(now time.Time) {
		for {
			an, ok, _ := p.next(now, false)
			if !ok {
				return
			}
			out = append(out, marked(an))
		}
	}
	take(t0) // "mail: Using one." is being said
	p.push(Announcement{Agent: "mail", Priority: Normal, Kind: "tool", Text: "Using two.", Theirs: []protocol.Span{}}, t0)
	p.push(Announcement{Agent: "code", Priority: Critical, Kind: "confirmation", Text: "Confirm it?", Theirs: []protocol.Span{},
		Prompt: &session.Prompt{Number: 1}}, t0)
	take(t0.Add(time.Millisecond))
	take(t0.Add(time.Minute))
	want := []string{"[mail]: Using one.", "[code]: Confirm it?", "[mail]: Using two."}
	if strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("said\n%s\nwant\n%s", strings.Join(out, "\n"), strings.Join(want, "\n"))
	}
}

// When the queue is collapsed, one agent's announcements are never counted
// into another's, the name goes with its own, and the count of skipped ones
// (anyone's) comes before it; the producer's words stay marked through it all.
func TestSayAgentsCollapsed(t *testing.T) {
	p := newPacer(PaceConfig{SayAgents: true, MaxLag: time.Second})
	for i := range 30 {
		agent := []string{"mail", "code"}[i%2]
		an := Announcement{Agent: agent, Priority: Normal, Kind: "tool"}
		an.Text, an.Theirs = protocol.SplitTheirs("Using " + protocol.Theirs(agent+" tool") + ".")
		p.push(an, t0)
	}
	var out []string
	for now := t0; now.Before(t0.Add(time.Hour)); now = now.Add(time.Second) {
		if an, ok, _ := p.next(now, false); ok {
			out = append(out, marked(an))
		}
		if len(p.queue) == 0 {
			break
		}
	}
	if len(out) == 0 || len(out) >= 30 {
		t.Fatalf("nothing collapsed: %q", out)
	}
	more := regexp.MustCompile(`(\d+) more`)
	theirs := regexp.MustCompile(`\[([^]]*)\]`)
	for _, s := range out {
		for _, m := range theirs.FindAllStringSubmatch(s, -1) {
			switch m[1] {
			case "mail", "code", "mail tool", "code tool":
			default:
				t.Errorf("%q: %q marked as the producer's", s, m[1])
			}
		}
		for _, agent := range []string{"mail", "code"} {
			if strings.Contains(s, "["+agent+"]: ") && !strings.Contains(s, "["+agent+" tool]") {
				t.Errorf("%q: another agent's words under %s's name", s, agent)
			}
		}
		if m := more.FindStringSubmatch(s); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > 14 {
				t.Errorf("%q: counts another agent's tool calls as this one's (15 each)", s)
			}
		}
		if i, j := strings.Index(s, "skipped"), strings.Index(s, "]: "); i >= 0 && j >= 0 && j < i {
			t.Errorf("%q: the skipped count comes after the name", s)
		}
	}
}
