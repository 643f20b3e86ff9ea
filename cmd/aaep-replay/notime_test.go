package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// play and export --format text leave the time off every line with
// --no-time, or "timestamps": false in the settings file (given with
// --config, or the user's own), as aaep-listen does; without either, each
// line starts with it (both ignored --no-time and the setting before).
func TestReplayNoTimeLines(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "given.json")
	if err := os.WriteFile(config, []byte(`{"timestamps": false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, "aaep-term"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "aaep-term", "announce.json"), []byte(`{"timestamps": false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	timed := regexp.MustCompile(`^\d\d:\d\d:\d\d `)
	file := corpus + "after-reject.aaep"
	for _, cmd := range [][]string{{"play", "--speed", "0"}, {"export", "--format", "text"}} {
		for _, tt := range []struct {
			name  string
			args  []string
			home  string // the config directory
			timed bool
		}{
			{"default", nil, t.TempDir(), true},
			{"--no-time", []string{"--no-time"}, t.TempDir(), false},
			{"--config", []string{"--config", config}, t.TempDir(), false},
			{"the user's settings file", nil, home, false},
		} {
			t.Run(cmd[0]+" "+tt.name, func(t *testing.T) {
				t.Setenv("XDG_CONFIG_HOME", tt.home)
				args := append(append(append([]string(nil), cmd...), tt.args...), file)
				code, out, errOut := runReplay(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				lines := strings.Split(strings.TrimSpace(out), "\n")
				if len(lines) < 3 {
					t.Fatalf("too little said:\n%s", out)
				}
				for _, l := range lines {
					if timed.MatchString(l) != tt.timed {
						t.Errorf("line %q: timed %v, want %v", l, !tt.timed, tt.timed)
					}
				}
			})
		}
	}
}

// A prompt the recorded subscriber answered is settled as answered when
// played: what the agent does next is never told as the prompt settled
// elsewhere or withdrawn, and a tool started after the recorded reject is
// told as started although it was rejected (before, "The recorded
// subscriber sent a confirmation reply: reject." was followed by "Prompt 1
// was settled elsewhere…" and "… still waiting for your answer").
func TestReplayRecordedAnswerSettlesThePrompt(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"clean.aaep", "after-reject.aaep"} {
		code, out, errOut := runReplay(t, "play", "--speed", "0", corpus+name)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		if !strings.Contains(out, "The recorded subscriber sent a confirmation reply") {
			t.Fatalf("%s: no recorded reply told:\n%s", name, out)
		}
		for _, never := range []string{"settled elsewhere", "withdrawn", "still waiting for your answer", "Sent your answer"} {
			if strings.Contains(out, never) {
				t.Errorf("%s: says %q of a prompt the recorded subscriber answered:\n%s", name, never, out)
			}
		}
	}
}
