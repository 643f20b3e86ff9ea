package notify

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// inSession marks the test process that runs inside dbus-run-session.
const inSession = "AAEP_NOTIFY_TEST_IN_DBUS_SESSION"

// TestMain runs the tests again inside a private session bus (dbus-run-session),
// so no test ever talks to the user's desktop.
func TestMain(m *testing.M) {
	if os.Getenv(inSession) != "" {
		os.Exit(m.Run())
	}
	if _, err := exec.LookPath("dbus-run-session"); err != nil {
		if os.Getenv("CI") != "" {
			fmt.Fprintln(os.Stderr, "dbus-run-session is required under CI:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "dbus-run-session not installed: D-Bus tests skipped")
		os.Exit(m.Run())
	}
	cmd := exec.Command("dbus-run-session", append([]string{"--", os.Args[0]}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), inSession+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// shown is one Notify call the fake server received.
type shown struct {
	App, Summary, Body string
	Urgency            byte
	Timeout            int32
}

// fakeServer is a notification server on the session bus that records calls.
type fakeServer struct {
	mu    sync.Mutex
	calls []shown
}

func (f *fakeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, shown{app, summary, body, urgency, timeout})
	return uint32(len(f.calls)), nil
}

func (f *fakeServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (f *fakeServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "fake", "aaep-term", "1", "1.2", nil
}

func (f *fakeServer) CloseNotification(id uint32) *dbus.Error { return nil }

func (f *fakeServer) recorded() []shown {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]shown(nil), f.calls...)
}

// wait polls until n calls were recorded.
func (f *fakeServer) wait(t *testing.T, n int, within time.Duration) []shown {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := f.recorded()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startFakeServer owns org.freedesktop.Notifications on the private bus for one test.
func startFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	if os.Getenv(inSession) == "" {
		t.Skip("not inside dbus-run-session")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{}
	if err := conn.Export(f, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the notification name: %v %v", reply, err)
	}
	t.Cleanup(func() {
		conn.ReleaseName("org.freedesktop.Notifications")
		conn.Close()
	})
	return f
}
