package main

import (
	"testing"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/internal/term"
)

// --verbosity, the settings file and "set verbosity" take the same words:
// verbose is detailed.
func TestVerbosityWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ word, want string }{
		{"terse", "terse"}, {"normal", "normal"}, {"detailed", "detailed"}, {"verbose", "detailed"}, {"VERBOSE", "detailed"},
	} {
		tio, _, _, _ := term.Test()
		o, err := parseFlags([]string{"--verbosity", tt.word, "--demo"}, tio, func(string) string { return "" })
		if err != nil || o.Verbosity != tt.want {
			t.Errorf("--verbosity %s: %v, %v; want %s", tt.word, o, err, tt.want)
		}
		s, err := announce.ParseSettings([]byte(`{"verbosity": "` + tt.word + `", "types": {"tool.started": {"verbosity": "` + tt.word + `"}}}`))
		if err != nil || s.Verbosity != tt.want || s.Types["aaep:agent.tool.started"].Verbosity != tt.want {
			t.Errorf("settings verbosity %s: %+v, %v; want %s", tt.word, s, err, tt.want)
		}
	}
	tio, _, _, _ := term.Test()
	if _, err := parseFlags([]string{"--verbosity", "loud", "--demo"}, tio, func(string) string { return "" }); err == nil {
		t.Error("--verbosity loud accepted")
	}
}
