package localagents

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

func TestDir(t *testing.T) {
	tmp := fmt.Sprintf("/tmp/aaep-%d", os.Getuid())
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, "/run/user/1000/aaep"},
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000/", "TMPDIR": "/var/tmp"}, "/run/user/1000/aaep"},
		{map[string]string{}, tmp},
		{map[string]string{"XDG_RUNTIME_DIR": "run/user/1000"}, tmp}, // relative: ignored
		{map[string]string{"TMPDIR": "/var/tmp"}, fmt.Sprintf("/var/tmp/aaep-%d", os.Getuid())},
		{map[string]string{"TMPDIR": "tmp"}, tmp},
	} {
		if got := Dir(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestLabelAndEndpoint(t *testing.T) {
	for _, tc := range []struct{ path, label string }{
		{"/run/user/1000/aaep/mail.sock", "mail"},
		{"/run/user/1000/aaep/coding-agent", "coding-agent"},
		{"/run/user/1000/aaep/a.b.sock", "a.b"},
		{"/run/user/1000/aaep/.sock", ".sock"},
		{"/d/bad\nFORGED.sock", "bad FORGED"},
		{"/d/\x1b[2Jclear.sock", "clear"},
		{"/d/zero\u200bwidth.sock", "zero<U+200B>width"},
	} {
		if got := Label(tc.path); got != tc.label {
			t.Errorf("Label(%q) = %q, want %q", tc.path, got, tc.label)
		}
		if got := Endpoint(tc.path); got != "unix:"+tc.path {
			t.Errorf("Endpoint(%q) = %q", tc.path, got)
		}
	}
}

func TestChangeString(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Path: "/run/user/1000/aaep/mail.sock"}, "New agent: mail."},
		{Change{Path: "/run/user/1000/aaep/mail.sock", Gone: true}, "Agent mail has gone."},
		{Change{Path: "/d/x\nFORGED.sock", Gone: true}, "Agent x FORGED has gone."},
		{Change{Path: "/d/other.sock", Refused: "the socket belongs to user 7, not to you (1000)"},
			"Not subscribing to the agent other: the socket belongs to user 7, not to you (1000)."},
		{Change{Err: errors.New("localagents: /d was removed or moved; no longer watching for agents there")},
			"localagents: /d was removed or moved; no longer watching for agents there."},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}
