package tui

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Clipboard is how y copies an event: through the terminal's clipboard
// (OSC 52) when the terminal is known to allow it, else to a file.
type Clipboard struct {
	OSC52 bool   // the terminal takes OSC 52
	Via   string // who takes it, in words: "tmux", "kitty"…; or why not
}

// clipboardTerms are terminals that let programs set the clipboard with
// OSC 52 in their default configuration, by $TERM.
var clipboardTerms = map[string]string{
	"xterm-kitty":   "kitty",
	"alacritty":     "Alacritty",
	"foot":          "foot",
	"foot-extra":    "foot",
	"xterm-ghostty": "Ghostty",
	"contour":       "Contour",
	"wezterm":       "WezTerm",
}

// clipboardPrograms are the same, by $TERM_PROGRAM.
var clipboardPrograms = map[string]string{
	"WezTerm": "WezTerm",
	"ghostty": "Ghostty",
}

// DetectClipboard decides whether OSC 52 reaches a clipboard. Terminals
// cannot be asked reliably (most refuse to report the clipboard, and an
// answer would race Bubble Tea for the input), so it goes by what is known:
//   - inside tmux ($TMUX), tmux's set-clipboard option must be "on" (with
//     "external" or "off" tmux drops what programs send); tmuxOption reads it;
//   - inside GNU screen ($STY) never: screen drops OSC 52;
//   - otherwise only terminals that allow it by default, told by $TERM,
//     $TERM_PROGRAM, $KITTY_WINDOW_ID or $WT_SESSION (Windows Terminal).
//
// xterm, iTerm2, GNOME Terminal, Konsole and Apple's Terminal are left out:
// they ignore OSC 52 unless configured, and there is no way to tell.
func DetectClipboard(getenv func(string) string, tmuxOption func(name string) (string, error)) Clipboard {
	if getenv("TMUX") != "" {
		v, err := tmuxOption("set-clipboard")
		if err != nil {
			return Clipboard{Via: "tmux's set-clipboard option could not be read"}
		}
		if v != "on" {
			return Clipboard{Via: "tmux's set-clipboard option is " + v + ", not on"}
		}
		return Clipboard{OSC52: true, Via: "tmux"}
	}
	if getenv("STY") != "" {
		return Clipboard{Via: "GNU screen does not pass OSC 52 on"}
	}
	if name, ok := clipboardTerms[getenv("TERM")]; ok {
		return Clipboard{OSC52: true, Via: name}
	}
	if name, ok := clipboardPrograms[getenv("TERM_PROGRAM")]; ok {
		return Clipboard{OSC52: true, Via: name}
	}
	if getenv("KITTY_WINDOW_ID") != "" {
		return Clipboard{OSC52: true, Via: "kitty"}
	}
	if getenv("WT_SESSION") != "" {
		return Clipboard{OSC52: true, Via: "Windows Terminal"}
	}
	return Clipboard{Via: "this terminal is not known to allow OSC 52"}
}

// TmuxOption reads a global option of the tmux server $TMUX names, waiting
// at most two seconds.
func TmuxOption(name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", "-gv", name).Output()
	if err != nil {
		return "", fmt.Errorf("tmux show-options %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
