package record

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aaep-term/aaep-term/internal/agentspec"
	"github.com/aaep-term/aaep-term/transport"
)

// TestCheck: options that cannot make a recording are refused before
// anything is sent to a producer, each with words that say why.
func TestCheck(t *testing.T) {
	t.Parallel()
	one := []agentspec.Spec{{Endpoint: "http://127.0.0.1:1"}}
	two := []agentspec.Spec{{Endpoint: "http://127.0.0.1:1"}, {Endpoint: "http://127.0.0.1:2"}}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    Options
		want string // "" for none
	}{
		{"fine", Options{Agents: one, Output: filepath.Join(dir, "s.aaep")}, ""},
		{"fine on stdout", Options{Agents: two, Output: "-"}, ""},
		{"no endpoint", Options{Output: "-"}, "--endpoint"},
		{"endpoint names nothing", Options{Agents: []agentspec.Spec{{Endpoint: "ftp://x"}}, Output: "-"}, "ftp"},
		{"no output", Options{Agents: one}, "--output"},
		{"output is a directory", Options{Agents: one, Output: dir}, "is a directory"},
		{"folder not there", Options{Agents: one, Output: filepath.Join(dir, "missing", "s.aaep")}, "is not there"},
		{"jsonl of several agents", Options{Agents: two, Output: "-", JSONL: true}, "cannot say which agent"},
		{"no handshake on the spec layout", Options{Agents: one, Output: "-", NoHandshake: true,
			Transport: transport.Options{SSE: transport.SSEOptions{Layout: transport.LayoutSpec}}}, "contradict"},
		{"rotating standard output", Options{Agents: one, Output: "-", RotateSize: 1 << 20}, "--rotate-size"},
		{"negative duration", Options{Agents: one, Output: "-", Duration: -1}, "must not be negative"},
		{"negative max events", Options{Agents: one, Output: "-", MaxEvents: -1}, "must not be negative"},
	} {
		err := tc.o.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
