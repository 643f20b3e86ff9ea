package outputs

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/proctest"
	"github.com/aaep-term/aaep-term/speech/speechdtest"
	"github.com/godbus/dbus/v5"
)

// startBus starts a private, real dbus-daemon with no services to start on
// demand, and returns its address; it stops with the test.
func startBus(t *testing.T) string {
	t.Helper()
	speechdtest.Need(t, "dbus-daemon")
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	os.WriteFile(conf, []byte(`<busconfig><type>session</type><listen>unix:dir=`+dir+`</listen>
<auth>EXTERNAL</auth><policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`), 0o600)
	cmd := exec.Command("dbus-daemon", "--config-file", conf, "--nofork", "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { proctest.Stop(cmd, 3*time.Second) })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// An output that cannot work is found at start, in one line that says what
// to start or install, and adds no output: braille without BRLTTY, desktop
// notifications without a D-Bus session, without a bus that answers, or with
// no notification server on it. With a server, notifications are on and
// nothing is said.
func TestOpenSaysWhatToStart(t *testing.T) {
	t.Parallel()
	speechdtest.Need(t, "brltty")
	bus := startBus(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    Options
		env  map[string]string
		want []string // in the one note; none: no note and one output
	}{
		{"braille without BRLTTY", Options{Braille: "auto", BrlAPIHost: dir + "/no-such-socket:9"},
			map[string]string{"BRLAPI_AUTH": "none"}, []string{"No braille: ", "Start brltty", "--brlapi-host"}},
		{"notify without a session", Options{Notify: "on"}, nil,
			[]string{"No desktop notifications: ", "no D-Bus session", "dbus-run-session"}},
		{"notify with a bus that does not answer", Options{Notify: "critical"},
			map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + dir + "/no-bus"}, []string{"No desktop notifications: ", "does not answer"}},
		{"notify without a server", Options{Notify: "on"},
			map[string]string{"DBUS_SESSION_BUS_ADDRESS": bus}, []string{"No desktop notifications: ", "no notification server", "dunst"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Getenv = func(k string) string { return tc.env[k] }
			var notes []string
			s := Open(context.Background(), tc.o, func(n string) { notes = append(notes, n) })
			defer s.Close()
			if len(s.List) != 0 || len(notes) != 1 {
				t.Fatalf("%d outputs, notes %q", len(s.List), notes)
			}
			for _, w := range tc.want {
				if !strings.Contains(notes[0], w) {
					t.Errorf("%q does not say %q", notes[0], w)
				}
			}
			if strings.Contains(notes[0], "dbus-launch") {
				t.Errorf("%q: a bus was looked for by starting one", notes[0])
			}
		})
	}
	t.Run("notify with a server", func(t *testing.T) {
		conn, err := dbus.Connect(bus)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("own the notification name: %v %v", reply, err)
		}
		var notes []string
		s := Open(context.Background(), Options{Notify: "on", Getenv: func(k string) string {
			if k == "DBUS_SESSION_BUS_ADDRESS" {
				return bus
			}
			return ""
		}}, func(n string) { notes = append(notes, n) })
		defer s.Close()
		if len(s.List) != 1 || len(notes) != 0 {
			t.Errorf("%d outputs, notes %q", len(s.List), notes)
		}
	})
}

// Each missing output is said once, in one line that names it once and
// says what to install or start (issue 24 item 2): before, speech said "No
// speech: speech: …", its own prefix inside ours.
func TestMissingOutputSaidOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		o      Options
		env    map[string]string
		prefix string // the line begins so, and names the output nowhere else that way
		want   string // what to do
	}{
		{"speechd without a daemon", Options{Speech: "speechd"},
			map[string]string{"SPEECHD_ADDRESS": "unix_socket:" + dir + "/no-speechd.sock"}, "No speech: ", "start speech-dispatcher"},
		{"speechd without an address", Options{Speech: "speechd"}, nil, "No speech: ", "start speech-dispatcher"},
		{"unknown speech", Options{Speech: "robot"}, nil, "No speech: ", "want auto"},
		{"braille without BRLTTY", Options{Braille: "auto", BrlAPIHost: dir + "/no-such-socket:9"},
			map[string]string{"BRLAPI_AUTH": "none"}, "No braille: ", "Start brltty"},
		{"notify without a session", Options{Notify: "on"}, nil, "No desktop notifications: ", "dbus-run-session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Getenv = func(k string) string { return tc.env[k] }
			var notes []string
			s := Open(context.Background(), tc.o, func(n string) { notes = append(notes, n) })
			defer s.Close()
			if len(notes) != 1 {
				t.Fatalf("notes %q, want one", notes)
			}
			n := notes[0]
			t.Log(n)
			if !strings.HasPrefix(n, tc.prefix) || !strings.Contains(n, tc.want) {
				t.Errorf("%q: want it to begin %q and say %q", n, tc.prefix, tc.want)
			}
			rest := strings.ToLower(strings.TrimPrefix(n, tc.prefix))
			for _, twice := range []string{"speech: ", "braille: ", "notify: ", "notifications: "} {
				if strings.HasPrefix(rest, twice) {
					t.Errorf("%q names the output twice", n)
				}
			}
		})
	}
}
