package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// --no-time, or "timestamps": false in the settings file, leaves the time
// off the start of every line the real listener prints; without either,
// each line starts with it.
func TestNoTimeLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	events := filepath.Join(dir, "events.jsonl")
	ev := `{"aaep_version":"1.0.0","type":"aaep:agent.session.started","event_id":"e1","session_id":"s1","sequence":1,` +
		`"timestamp":"2026-06-30T14:22:11Z","producer":{"agent_id":"a","agent_name":"Helper"},"summary":{"normal":"Looking."}}` + "\n"
	if err := os.WriteFile(events, []byte(ev), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "announce.json")
	if err := os.WriteFile(config, []byte(`{"timestamps": false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	timed := regexp.MustCompile(`^\d\d:\d\d:\d\d `)
	for _, tt := range []struct {
		name  string
		args  []string
		timed bool
	}{
		{"default", nil, true},
		{"--no-time", []string{"--no-time"}, false},
		{"settings file", []string{"--config", config}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(listenerBinary(t), append(tt.args, "--plain", events)...)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if !strings.Contains(string(out), "Helper: ") {
				t.Fatalf("the event is not announced:\n%s", out)
			}
			for _, l := range lines {
				if timed.MatchString(l) != tt.timed {
					t.Errorf("line %q: timed %v, want %v", l, !tt.timed, tt.timed)
				}
			}
		})
	}
}
