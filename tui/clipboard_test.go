package tui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestDetectClipboard(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		tmux string // tmux's set-clipboard; "error" when it cannot be read
		want Clipboard
	}{
		{"tmux on", map[string]string{"TMUX": "/tmp/tmux-1/default,1,0", "TERM": "screen"}, "on", Clipboard{true, "tmux"}},
		{"tmux external", map[string]string{"TMUX": "/tmp/t,1,0", "TERM": "xterm-kitty"}, "external",
			Clipboard{false, "tmux's set-clipboard option is external, not on"}},
		{"tmux off", map[string]string{"TMUX": "/tmp/t,1,0"}, "off", Clipboard{false, "tmux's set-clipboard option is off, not on"}},
		{"tmux unreadable", map[string]string{"TMUX": "/tmp/t,1,0"}, "error", Clipboard{false, "tmux's set-clipboard option could not be read"}},
		{"screen", map[string]string{"STY": "123.pts-0", "TERM": "xterm-kitty"}, "", Clipboard{false, "GNU screen does not pass OSC 52 on"}},
		{"kitty", map[string]string{"TERM": "xterm-kitty"}, "", Clipboard{true, "kitty"}},
		{"kitty over a plain TERM", map[string]string{"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, "", Clipboard{true, "kitty"}},
		{"alacritty", map[string]string{"TERM": "alacritty"}, "", Clipboard{true, "Alacritty"}},
		{"foot", map[string]string{"TERM": "foot"}, "", Clipboard{true, "foot"}},
		{"wezterm", map[string]string{"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "", Clipboard{true, "WezTerm"}},
		{"windows terminal", map[string]string{"WT_SESSION": "abc"}, "", Clipboard{true, "Windows Terminal"}},
		{"xterm", map[string]string{"TERM": "xterm-256color"}, "", Clipboard{false, "this terminal is not known to allow OSC 52"}},
		{"gnome terminal", map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, "", Clipboard{false, "this terminal is not known to allow OSC 52"}},
		{"apple terminal", map[string]string{"TERM_PROGRAM": "Apple_Terminal"}, "", Clipboard{false, "this terminal is not known to allow OSC 52"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			tmux := func(name string) (string, error) {
				asked = true
				if name != "set-clipboard" {
					t.Errorf("asked tmux for %q", name)
				}
				if tt.tmux == "error" {
					return "", errors.New("no server")
				}
				return tt.tmux, nil
			}
			got := DetectClipboard(func(k string) string { return tt.env[k] }, tmux)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if asked != (tt.env["TMUX"] != "") {
				t.Errorf("tmux asked: %v", asked)
			}
		})
	}
}

// With a clipboard, y copies there and writes no file; without, the file
// is named and so is the reason.
func TestCopy(t *testing.T) {
	for _, osc52 := range []bool{true, false} {
		dir := t.TempDir()
		opts := testOptions(dir, &recorder{})
		var copied []string
		if osc52 {
			opts.Clipboard = func(s string) { copied = append(copied, s) }
			opts.ClipboardVia = "tmux"
		} else {
			opts.ClipboardVia = "this terminal is not known to allow OSC 52"
		}
		m := New(opts)
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 20})
		m.Update(ItemsMsg(testItems(3)))
		m.Update(keyMsg("y"))
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		if osc52 {
			if len(copied) != 1 || !strings.Contains(copied[0], `"event_id":"ev-003"`) || len(files) != 0 {
				t.Errorf("copied %q, files %q", copied, files)
			}
			if want := "Copied the event JSON (54 bytes) to the clipboard through tmux."; m.message != want {
				t.Errorf("message %q, want %q", m.message, want)
			}
			continue
		}
		name := filepath.Join(dir, "aaep-event-ev-003.json")
		if want := "No clipboard (this terminal is not known to allow OSC 52): saved the event JSON to " + name + "."; m.message != want {
			t.Errorf("message %q, want %q", m.message, want)
		}
		if b, err := os.ReadFile(name); err != nil || !strings.Contains(string(b), `"ev-003"`) {
			t.Errorf("file: %q, %v", b, err)
		}
	}
}
