package term

import (
	"io"
	"testing"
)

func TestPlainDecision(t *testing.T) {
	tests := []struct {
		name      string
		outTTY    bool
		env       map[string]string
		force     bool
		wantPlain bool
	}{
		{"tty with xterm", true, map[string]string{"TERM": "xterm-256color"}, false, false},
		{"not a tty", false, map[string]string{"TERM": "xterm"}, false, true},
		{"dumb terminal", true, map[string]string{"TERM": "dumb"}, false, true},
		{"no TERM", true, nil, false, true},
		{"NO_COLOR", true, map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false, true},
		{"ACCESSIBLE", true, map[string]string{"TERM": "xterm", "ACCESSIBLE": "1"}, false, true},
		{"--plain", true, map[string]string{"TERM": "xterm"}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New(nil, io.Discard, io.Discard, true, tt.outTTY, func(k string) string { return tt.env[k] }, tt.force)
			if got.Plain != tt.wantPlain || got.Color == tt.wantPlain {
				t.Errorf("Plain=%v Color=%v, want Plain=%v", got.Plain, got.Color, tt.wantPlain)
			}
		})
	}
}
