package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// y puts the selected event on the clipboard through OSC 52 only when tmux
// takes it (set-clipboard on); otherwise the event goes to a file, and the
// message line says where and why.
func TestTUICopyFollowsTmuxSetClipboard(t *testing.T) {
	t.Parallel()
	bin := buildListener(t)
	for _, tt := range []struct{ option, want string }{
		{"on", "Copied the event JSON"},
		{"off", "No clipboard (tmux's set-clipboard option is off, not on): saved the event JSON to "},
		{"external", "No clipboard (tmux's set-clipboard option is external, not on): saved the event JSON to "},
	} {
		t.Run(tt.option, func(t *testing.T) {
			dir := t.TempDir()
			tt0 := startTUITerminal(t, "tmux set-option -g set-clipboard "+tt.option+" && cd "+dir+
				" && NO_COLOR=1 TERM=xterm-256color "+bin+" --tui --demo --demo-speed 0 --answer-after 0 --demo-scenarios confirm") // the key right away: not about --answer-after
			waitFor(t, tt0.screen, "CONFIRMATION NEEDED, prompt 1", 30*time.Second)
			tt0.keys("C", "y") // the confirmation event itself
			// A long message wraps onto a second row: read the words.
			joined := func() string { return flat(tt0.screen()) }
			s := waitFor(t, joined, tt.want, 10*time.Second)
			files, _ := filepath.Glob(filepath.Join(dir, "aaep-event-*.json"))
			if tt.option == "on" {
				if !strings.Contains(s, "to the clipboard through tmux.") {
					t.Errorf("message does not say through tmux:\n%s", s)
				}
				if buf := tt0.tmux("show-buffer"); !strings.Contains(buf, `"type":"aaep:agent.awaiting.confirmation"`) {
					t.Errorf("tmux's paste buffer holds %q", buf)
				}
				if len(files) != 0 {
					t.Errorf("a file was written as well: %q", files)
				}
			} else {
				if len(files) != 1 || !strings.Contains(s, tt.want+files[0][:20]) {
					t.Fatalf("files %q; screen:\n%s", files, s)
				}
				if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "awaiting.confirmation") {
					t.Errorf("file holds %q", b)
				}
			}
			tt0.keys("r")
			tt0.quitAtEnd()
			waitFor(t, tt0.all, "EXITED rc=0", 30*time.Second)
		})
	}
}
