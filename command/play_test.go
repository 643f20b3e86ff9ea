package command

import (
	"testing"
	"time"
)

func TestParsePlay(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Command
		bad  bool
	}{
		{in: "pause", want: Command{Verb: VerbPause}},
		{in: " P ", want: Command{Verb: VerbPause}},
		{in: "resume", want: Command{Verb: VerbResume}},
		{in: "step", want: Command{Verb: VerbStep}},
		{in: "seek 1m30s", want: Command{Verb: VerbSeek, At: 90 * time.Second}},
		{in: "seek 1:30", want: Command{Verb: VerbSeek, At: 90 * time.Second}},
		{in: "seek 1:02:03.5", want: Command{Verb: VerbSeek, At: 3723500 * time.Millisecond}},
		{in: "seek 45", want: Command{Verb: VerbSeek, At: 45 * time.Second}},
		{in: "seek -10s", want: Command{Verb: VerbSeek, At: -10 * time.Second, Relative: true}},
		{in: "seek + 10s", want: Command{Verb: VerbSeek, At: 10 * time.Second, Relative: true}},
		{in: "next critical", want: Command{Verb: VerbNext, Critical: true}},
		{in: "next", want: Command{Verb: VerbNext, Critical: true}},
		{in: "previous mark", want: Command{Verb: VerbPrevious}},
		{in: "nc", want: Command{Verb: VerbNext, Critical: true}},
		{in: "speed 2", want: Command{Verb: VerbSpeed, Speed: 2}},
		{in: "speed 0.5x", want: Command{Verb: VerbSpeed, Speed: 0.5}},
		{in: "speed", want: Command{Verb: VerbSpeed, Speed: -1}},
		{in: "quit", want: Command{Verb: VerbQuit}},
		{in: "toggle", want: Command{Verb: VerbToggle}},
		{in: "faster", want: Command{Verb: VerbFaster}},
		{in: "slower", want: Command{Verb: VerbSlower}},
		{in: "", bad: true},
		{in: "seek", bad: true},
		{in: "seek 1:75", bad: true},
		{in: "seek soon", bad: true},
		{in: "speed -1", bad: true},
		{in: "speed fast", bad: true},
		{in: "speed NaN", bad: true},
		{in: "pause now", bad: true},
		{in: "next door", bad: true},
		{in: "accept 1", bad: true},
	} {
		got, err := ParsePlay(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("ParsePlay(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func FuzzParsePlay(f *testing.F) {
	for _, s := range []string{"seek 1:30", "seek -10s", "speed 2", "next critical", "pm", "seek 99999999999999:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParsePlay(s)
		if err != nil {
			return
		}
		if c.Verb == VerbSpeed && c.Speed > 1000 {
			t.Errorf("%q: speed %v", s, c.Speed)
		}
	})
}
