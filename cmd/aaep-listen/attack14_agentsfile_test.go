package main

import (
	"strings"
	"testing"
)

// A hostile or mistaken --agents file is refused with a plain reason, at
// once: an endless one (/dev/zero) or a huge one is not read whole into
// memory, a deep one, a label with escapes or look-alike letters, and two
// labels alike are refused; nothing of the file reaches the error
// unsanitized.
func TestAttack14HostileAgentsFiles(t *testing.T) {
	t.Parallel()
	huge := "[" + strings.Repeat(" ", 2<<20) + `{"endpoint": "http://127.0.0.1:1"}]`
	for _, tc := range []struct {
		name, body, path, want string
	}{
		{name: "endless", path: "/dev/zero", want: "larger than"},
		{name: "huge", body: huge, want: "larger than"},
		{name: "deep", body: strings.Repeat("[", 20000) + strings.Repeat("]", 20000), want: "--agents"},
		{name: "escape label", body: `[{"endpoint": "http://127.0.0.1:1", "label": "mail\u001b[2K\r"}]`, want: "must be 1 to"},
		{name: "look-alike label", body: `[{"endpoint": "http://127.0.0.1:1", "label": "m\u0430il"}]`, want: "must be 1 to"},
		{name: "label twice", body: `[{"endpoint": "http://127.0.0.1:1", "label": "mail"}, {"endpoint": "http://127.0.0.1:2", "label": "MAIL"}]`, want: "given twice"},
		{name: "escape key", body: `[{"endpoint": "http://127.0.0.1:1", "\u001b]0;x\u0007": 1}]`, want: "unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if path == "" {
				path = agentsFile(t, tc.body)
			}
			_, err := parseFlags([]string{"--plain", "--agents", path}, testIO(), noEnv)
			if err == nil {
				t.Fatal("taken")
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.ContainsAny(msg, "\x1b\r\n\a") {
				t.Fatalf("error %q, want it to say %q, in one clean line", msg, tc.want)
			}
		})
	}
}
