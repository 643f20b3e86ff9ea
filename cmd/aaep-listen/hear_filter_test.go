package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// --include and --exclude take the short form aaep-capture --filter takes
// (tool.* is aaep:agent.tool.*), say when a pattern matches no known type,
// are applied to a file too, and the events a producer leaves out for them
// cause no false gap or joined warnings.
func TestFiltersShortFormNoFalseGaps(t *testing.T) {
	t.Parallel()
	file := recordedCorpus(t, "")
	for _, tc := range []struct {
		name      string
		args      []string
		want, not []string // in stdout
		wantErr   []string // in stderr
		notErr    []string
		before    [2]string // in stdout, the first before the second
	}{
		{
			name:   "demo, excluding tool events the short way",
			args:   []string{"--demo", "--demo-speed", "0", "--demo-scenarios", "happy,confirm", "--exclude", "tool.*"},
			want:   []string{"Looking up tomorrow's weather in Lisbon.", "Tomorrow will be mostly sunny in Lisbon."},
			not:    []string{"Asking the forecast service", "Finished weather forecast", "Reading the latest bill"},
			notErr: []string{"gap", "joined", "filters exclude"},
			// held for the numbers the filters left out, and released
			// before the connection's end is told
			before: [2]string{"Finished: Answered: tomorrow will be sunny in Lisbon.", "The producer ended the stream."},
		},
		{
			name:   "demo, including only session and output events",
			args:   []string{"--demo", "--demo-speed", "0", "--demo-scenarios", "happy", "--include", "session.*,output.*"},
			want:   []string{"Tomorrow will be mostly sunny in Lisbon.", "Finished: Answered"},
			not:    []string{"Asking the forecast service", "Working out which forecast"},
			notErr: []string{"gap", "joined"},
		},
		{
			name:    "a file, filtered here, with a misspelt pattern",
			args:    []string{"--exclude", "tool.*,state.chnged", file},
			want:    []string{"Bank Helper is starting.", "New balance: $12,000."},
			not:     []string{"Calling fetch_balance", "Finished transfer funds"},
			wantErr: []string{"aaep-listen: The exclude filter aaep:agent.state.chnged matches no known event type; check its spelling (such as tool.* or agent.progress.updated).\n"},
			notErr:  []string{"gap", "joined", "tool.* matches"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startListener(t, append([]string{"--plain", "--no-sign"}, tc.args...)...)
			r.stdin.Close()
			r.wait(t)
			out, errOut := r.stdout(), r.stderr()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("stdout has %q, which the filters exclude", w)
				}
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			for _, w := range tc.notErr {
				if strings.Contains(errOut, w) {
					t.Errorf("stderr has %q", w)
				}
			}
			if tc.before[0] != "" {
				if i, j := strings.Index(out, tc.before[0]), strings.Index(out, tc.before[1]); i < 0 || j < 0 || i > j {
					t.Errorf("%q is not told before %q", tc.before[0], tc.before[1])
				}
			}
			if t.Failed() {
				t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}
		})
	}
}

// "set include" and "set exclude" read the short form too, and name a
// pattern that matches no known type.
func TestSetFilterNamesUnknownPattern(t *testing.T) {
	t.Parallel()
	l, out, _ := testListener(t, time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), false)
	l.command(context.Background(), "set exclude tool.*,progres.updated")
	want := "The exclude filter aaep:agent.progres.updated matches no known event type; check its spelling (such as tool.* or agent.progress.updated)."
	if len(out.lines) == 0 || out.lines[0] != want {
		t.Errorf("said %q, want first %q", out.lines, want)
	}
	if strings.Contains(strings.Join(out.lines, "\n"), "tool.* matches") {
		t.Errorf("a known pattern was named: %q", out.lines)
	}
}
