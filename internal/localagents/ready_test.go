//go:build linux

package localagents

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// boundSocket makes a socket file at path that nobody listens on yet, as a
// producer does between bind and listen; listen makes it accept.
func boundSocket(t *testing.T, path string) (listen func()) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := syscall.Listen(fd, 8); err != nil {
			t.Error(err)
		}
	}
}

// A socket the watcher reports before its producer listens is dialled
// again, and subscribed to once it accepts: the producer listens only
// after the first refused dial, so the order is made by the test, not by
// time. A change after it waits behind it.
func TestReadyRetriesUntilListening(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(t.TempDir(), "aaep")
	changes, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mail.sock")
	listen := boundSocket(t, path)
	var refused []int
	r := Ready{Wait: time.Millisecond, OnRefused: func(p string, try int) {
		if p != path {
			return // the later socket: it may be reported between its bind and its listen too
		}
		refused = append(refused, try)
		if try == 1 {
			listen()
		}
	}}
	agents := r.Agents(ctx, changes)
	a := <-agents
	if a != (Agent{Label: "mail", Endpoint: "unix:" + path}) {
		t.Fatalf("agent %+v", a)
	}
	if len(refused) != 1 {
		t.Fatalf("refused tries %v, want [1]", refused)
	}
	later := filepath.Join(dir, "web.sock")
	boundSocket(t, later)()
	if a := <-agents; a.Endpoint != "unix:"+later || a.Note != "" {
		t.Fatalf("later agent %+v (refused %v)", a, refused)
	}
}

// A socket that never listens is given up after the bound, with one plain
// line instead of an agent that would fail at once.
func TestReadyGivesUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mail.sock")
	boundSocket(t, path)
	tries := 0
	r := Ready{Tries: 3, Wait: time.Millisecond, OnRefused: func(string, int) { tries++ }}
	a := r.Agent(context.Background(), Change{Path: path})
	if tries != 3 {
		t.Errorf("%d tries, want 3", tries)
	}
	want := "Not subscribing to the agent mail: its socket refused all 3 connections tried over 3 milliseconds; restart the agent to try again."
	if a != (Agent{Note: want}) {
		t.Fatalf("got %+v, want the line %q", a, want)
	}
}

// The other changes: a refused socket and the watch's end are lines; a
// socket gone is said gone without a dial; a name that is no label leaves
// the label empty (the listener names it by its endpoint); a dial failing
// for another reason than nobody listening hands the agent over at once.
func TestReadyAgent(t *testing.T) {
	never := func(p string, _ int) { t.Errorf("dialled %s", p) }
	for _, tc := range []struct {
		ch   Change
		want Agent
	}{
		{Change{Path: "/x/aaep/mail.sock", Refused: "the socket belongs to user 7, not to you (1000)"},
			Agent{Note: "Not subscribing to the agent mail: the socket belongs to user 7, not to you (1000)."}},
		{Change{Err: errGone}, Agent{Note: "the directory went."}},
		{Change{Path: "/x/aaep/mail.sock", Gone: true}, Agent{Label: "mail", Endpoint: "unix:/x/aaep/mail.sock", Gone: true}},
		{Change{Path: "/nonexistent/aaep/mail.sock"}, Agent{Label: "mail", Endpoint: "unix:/nonexistent/aaep/mail.sock"}},
		{Change{Path: "/nonexistent/aaep/mail #2.sock"}, Agent{Endpoint: "unix:/nonexistent/aaep/mail #2.sock"}},
	} {
		got := Ready{OnRefused: never}.Agent(context.Background(), tc.ch)
		if got != tc.want {
			t.Errorf("%+v: %+v, want %+v", tc.ch, got, tc.want)
		}
		if strings.ContainsAny(got.Note, "\x1b\n") {
			t.Errorf("line %q", got.Note)
		}
	}
}

var errGone = errors.New("the directory went")
