package cliflag

import (
	"strings"
	"testing"
)

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	known := []string{"check", "trace", "play", "serve", "export", "stats"}
	for _, c := range []struct{ name, want string }{
		{"chekc", "Did you mean check?"}, // two letters swapped
		{"serv", "Did you mean serve?"},  // one missing
		{"plays", "Did you mean play?"},  // one added
		{"stots", "Did you mean stats?"}, // one changed
		{"verify", ""},                   // nothing near
		{"x", ""},                        // too short to be near anything
		{strings.Repeat("a", 5000), ""},  // long input, no quadratic work
		{"\x1b[31mcheck", ""},            // quoted, so the escape is shown, not sent
	} {
		got := UnknownCommand("aaep-replay", c.name, known)
		if !strings.HasPrefix(got, "aaep-replay: unknown command ") || strings.Contains(got, "\n") {
			t.Errorf("%q: %q", c.name, got)
		}
		if c.want == "" && strings.Contains(got, "Did you mean") || !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.name, got, c.want)
		}
		if strings.Contains(got, "\x1b") {
			t.Errorf("%q: an escape reached the message: %q", c.name, got)
		}
	}
}
