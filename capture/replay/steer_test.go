package replay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/capture"
)

const clean = "../testdata/corpus/clean.aaep"

// heard is a Player that writes what it is given as lines: each record
// played (by its line in the capture, and whether muted), each line said,
// and each reset and finish.
type heard struct {
	lines []string
	muted bool
	base  time.Time
}

func (h *heard) add(format string, args ...any) {
	h.lines = append(h.lines, fmt.Sprintf(format, args...))
}

func (h *heard) Record(rec capture.Record, at time.Time) {
	m := ""
	if h.muted {
		m = " muted"
	}
	h.add("record line %d at %v%s", rec.Line, at.Sub(h.base), m)
}
func (h *heard) Settle() {}
func (h *heard) Say(_ time.Time, text string) {
	if !h.muted {
		h.add("say %s", text)
	}
}
func (h *heard) SayConnections(time.Time, *capture.Header) {}
func (h *heard) Flush()                                    {}
func (h *heard) Reset()                                    { h.add("reset") }
func (h *heard) Mute(muted bool)                           { h.muted = muted }
func (h *heard) Finish(_ time.Time, why string, problems []capture.Diagnostic) {
	h.add("finish %q with %d problems", why, len(problems))
}

// steer plays clean.aaep as fast as possible, paused at the start, through
// commands (all typed before playing starts), and returns what p heard.
func steer(t *testing.T, commands ...string) []string {
	t.Helper()
	cmds := make(chan string, len(commands))
	for _, c := range commands {
		cmds <- c
	}
	close(cmds)
	rd, err := capture.Open(clean)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	h := &heard{base: Start(rd)}
	s, err := Load(h, rd, func() (*capture.Reader, error) { return capture.Open(clean) },
		Options{Speed: 0, Idle: time.Second, Paused: true, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	s.Run(context.Background())
	return h.lines
}

// want fails unless got holds each of want, in order (others may come between).
func inOrder(t *testing.T, got []string, want ...string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("missing %q (in order) from:\n%s", want[i], strings.Join(got, "\n"))
	}
}

// Steered playing, as the engine drives its player: a step plays one
// record; a seek forward plays the records it skips muted, so the client
// is where it would have been; a jump back resets the player and plays
// silently from the start; quit finishes with "Stopped.".
func TestSteeredDrivesThePlayer(t *testing.T) {
	t.Parallel()
	got := steer(t, "step", "seek 0:00.5", "previous critical", "quit")
	inOrder(t, got,
		"say Replaying 20 messages over 0:01.0; prompts are shown but not answered. Type help for the commands.",
		"say Paused at the start: type resume to play, or step for one message.",
		"record line 2 at 50ms",
		"record line 3 at 100ms muted",
		"record line 10 at 450ms muted",
		"say Went to 0:00.5: 0:00.5 of 0:01.0, line 11, message 10 of 20.",
		"reset",
		"record line 2 at 50ms muted",
		"say Jumped to the previous critical event: 0:00.3 of 0:01.0, line 7, message 6 of 20.",
		"record line 7 at 300ms",
		`finish "Stopped." with 0 problems`,
	)
	if slices.Contains(got, "record line 11 at 500ms muted") {
		t.Errorf("the seek to 0:00.5 played line 11, which it goes to:\n%s", strings.Join(got, "\n"))
	}
}

// Commands that run out leave playing to go on to the end, which is told
// once with the number of records.
func TestSteeredPlaysOnWhenCommandsEnd(t *testing.T) {
	t.Parallel()
	got := steer(t, "mark", "where")
	inOrder(t, got,
		"say Mark set at 0:00.1 of 0:01.0, line 2, message 1 of 20.",
		"say At 0:00.1 of 0:01.0, line 2, message 1 of 20, paused.",
		"say No more commands: playing on to the end.",
		"record line 2 at 50ms",
		"record line 21 at 1s",
		`finish "End of the capture: 20 messages replayed." with 0 problems`,
	)
	n := 0
	for _, g := range got {
		if strings.HasPrefix(g, "record ") {
			n++
		}
	}
	if n != 20 {
		t.Errorf("%d records played, want the capture's 20:\n%s", n, strings.Join(got, "\n"))
	}
}

// A bad command is said as a sentence and playing goes on.
func TestSteeredRefusesBadCommand(t *testing.T) {
	t.Parallel()
	got := steer(t, "frobnicate", "speed 2000", "quit")
	inOrder(t, got,
		`say "frobnicate" is no command; help lists them.`,
		"say Speed takes a number from 0 to 1000, such as 2 or 0.5, not \"2000\".",
		`finish "Stopped." with 0 problems`,
	)
}
