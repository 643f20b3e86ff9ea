package replay

import (
	"testing"
	"time"
)

func TestParseCommand(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Command
		bad  bool
	}{
		{in: "pause", want: Command{Verb: Pause}},
		{in: " P ", want: Command{Verb: Pause}},
		{in: "resume", want: Command{Verb: Resume}},
		{in: "step", want: Command{Verb: Step}},
		{in: "seek 1m30s", want: Command{Verb: Seek, At: 90 * time.Second}},
		{in: "seek 1:30", want: Command{Verb: Seek, At: 90 * time.Second}},
		{in: "seek 1:02:03.5", want: Command{Verb: Seek, At: 3723500 * time.Millisecond}},
		{in: "seek 45", want: Command{Verb: Seek, At: 45 * time.Second}},
		{in: "seek -10s", want: Command{Verb: Seek, At: -10 * time.Second, Relative: true}},
		{in: "seek + 10s", want: Command{Verb: Seek, At: 10 * time.Second, Relative: true}},
		{in: "next critical", want: Command{Verb: Next, Critical: true}},
		{in: "next", want: Command{Verb: Next, Critical: true}},
		{in: "previous mark", want: Command{Verb: Previous}},
		{in: "nc", want: Command{Verb: Next, Critical: true}},
		{in: "speed 2", want: Command{Verb: Speed, Speed: 2}},
		{in: "speed 0.5x", want: Command{Verb: Speed, Speed: 0.5}},
		{in: "speed", want: Command{Verb: Speed, Speed: -1}},
		{in: "quit", want: Command{Verb: Quit}},
		{in: "toggle", want: Command{Verb: Toggle}},
		{in: "faster", want: Command{Verb: Faster}},
		{in: "slower", want: Command{Verb: Slower}},
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
		got, err := ParseCommand(tt.in)
		if (err != nil) != tt.bad || (!tt.bad && got != tt.want) {
			t.Errorf("ParseCommand(%q) = %+v, %v", tt.in, got, err)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"seek 1:30", "seek -10s", "speed 2", "next critical", "pm", "seek 99999999999999:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCommand(s)
		if err != nil {
			return
		}
		if c.Verb == Speed && c.Speed > 1000 {
			t.Errorf("%q: speed %v", s, c.Speed)
		}
		_ = clock(c.At)
	})
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0:00.0", 1500 * time.Millisecond: "0:01.5", 90 * time.Second: "1:30.0", -2 * time.Second: "-0:02.0", time.Hour: "60:00.0",
	} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
}
