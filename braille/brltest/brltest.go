// Package brltest starts a real BRLTTY for tests, private to one test, driving
// a virtual display (the vr driver) that the test reads and presses keys on.
package brltest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/proctest"
)

// Display is a running BRLTTY and the virtual display it writes to.
type Display struct {
	Host string // the BRLAPI_HOST of its BrlAPI socket, e.g. ":42"

	cmd      *exec.Cmd
	display  net.Conn
	stopOnce sync.Once
	dir      string // its private directory
	host     string // the BrlAPI socket number
	auth     string // BrlAPI auth: none or keyfile:PATH
	width    int

	mu      sync.Mutex
	visuals []string      // every Visual line BRLTTY showed, in order; guarded by mu
	shown   chan struct{} // closed and replaced when a Visual line comes; guarded by mu
}

// upWait bounds the waits for BRLTTY to come up and for its display to
// show something: generous, since BRLTTY starts slowly on a loaded machine.
// It is the test's last resort, not what it waits on.
const upWait = 15 * time.Second

// Start starts brltty with a width-cell virtual display for t and stops it
// when t ends. With keyFile set, BrlAPI asks for that key. Without brltty the
// test is skipped, or failed when the CI environment variable is set.
func Start(t testing.TB, width int, keyFile string) *Display {
	t.Helper()
	if _, err := exec.LookPath("brltty"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("brltty is required under CI: %v", err)
		}
		t.Skip("brltty not installed")
	}
	dir, err := os.MkdirTemp("", "brl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// BrlAPI socket numbers are shared by the machine: pick one nobody uses.
	host := freeHost(t)
	auth := "none"
	if keyFile != "" {
		auth = "keyfile:" + keyFile
	}
	d := &Display{Host: ":" + host, dir: dir, host: host, auth: auth, width: width, shown: make(chan struct{})}
	d.launch(t)
	t.Cleanup(d.Stop)
	return d
}

// Restart starts BRLTTY again after Stop, with the same display and BrlAPI
// socket, as when the user restarts it.
func (d *Display) Restart(t testing.TB) {
	t.Helper()
	d.stopOnce = sync.Once{}
	d.launch(t)
}

// RestartHeld starts BRLTTY again after Stop, as Restart does, but holds
// its braille driver back: BrlAPI answers, with no display yet (size 0×0),
// as a BRLTTY still starting does. release lets the driver start and
// waits until the display is up.
func (d *Display) RestartHeld(t testing.TB) (release func()) {
	t.Helper()
	d.stopOnce = sync.Once{}
	ready := d.start(t)
	d.waitGreeted(t)
	return func() { t.Helper(); ready(t) }
}

// launch starts brltty and its virtual display and waits until BrlAPI answers.
func (d *Display) launch(t testing.TB) {
	t.Helper()
	d.start(t)(t)
}

// start starts brltty and takes its virtual display's connection; ready
// tells the driver the display's size and waits until BrlAPI answers and
// the display has shown something.
func (d *Display) start(t testing.TB) (ready func(testing.TB)) {
	t.Helper()
	dir, host, auth, width := d.dir, d.host, d.auth, d.width
	os.Remove(filepath.Join(dir, "vr.sock"))
	ln, err := net.Listen("unix", filepath.Join(dir, "vr.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d.cmd = exec.Command("brltty", "-n", "-e", "-q", "-b", "vr", "-d", "client:"+filepath.Join(dir, "vr.sock"),
		"-x", "no", "-s", "no", "-A", "host=:"+host+",auth="+auth, "-W", dir, "-U", dir,
		"-P", filepath.Join(dir, "brltty.pid"), "-F", filepath.Join(dir, "prefs"), "-l", "warning")
	if err := d.cmd.Start(); err != nil {
		t.Fatalf("start brltty: %v", err)
	}
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatalf("brltty did not connect to the display: %v", err)
	}
	d.display = conn
	return func(t testing.TB) {
		t.Helper()
		seen := len(d.Visuals())
		fmt.Fprintf(conn, "cells %d\n", width)
		go d.read(conn)
		// Ready when the display has shown something and BrlAPI listens.
		d.waitVisuals(t, "anything", func(v []string) bool { return len(v) > seen })
		d.waitGreeted(t)
	}
}

// waitGreeted waits until BrlAPI on d's socket greets a client with its
// version packet. BRLTTY tells no one when its socket is ready, so this is
// the one wait here that polls: it tries every 100 ms, for upWait at most.
func (d *Display) waitGreeted(t testing.TB) {
	t.Helper()
	path := "/var/lib/BrlAPI/" + d.host
	deadline := time.Now().Add(upWait)
	for {
		err := greeted(path)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("BrlAPI did not come up in %v: %v", upWait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// greeted connects to BrlAPI at path and waits for its version packet.
func greeted(path string) error {
	c, err := net.Dial("unix", path)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(time.Second))
	_, err = io.ReadFull(c, make([]byte, 12))
	return err
}

// hosts are the BrlAPI socket numbers this process's displays took, so
// that tests running in parallel never pick the same one before its
// BRLTTY has made the socket. The numbers are the machine's: a registry
// for the whole process is the narrowest that can hold them.
var hosts struct {
	sync.Mutex
	taken map[int]bool
}

// freeHost returns a BrlAPI socket number with no socket yet, that no
// other display of this process took; it is given back when t ends.
func freeHost(t testing.TB) string {
	hosts.Lock()
	defer hosts.Unlock()
	if hosts.taken == nil {
		hosts.taken = map[int]bool{}
	}
	for n := 20 + os.Getpid()%60; n < 99; n++ {
		if hosts.taken[n] {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/var/lib/BrlAPI/%d", n)); os.IsNotExist(err) {
			hosts.taken[n] = true
			t.Cleanup(func() {
				hosts.Lock()
				delete(hosts.taken, n)
				hosts.Unlock()
			})
			return fmt.Sprint(n)
		}
	}
	t.Fatal("no free BrlAPI socket number")
	return ""
}

func (d *Display) read(conn net.Conn) {
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Visual "); ok {
			d.mu.Lock()
			d.visuals = append(d.visuals, strings.Trim(rest, "\""))
			close(d.shown)
			d.shown = make(chan struct{})
			d.mu.Unlock()
		}
	}
}

// Stop stops BRLTTY by its process id; it is also done when the test ends.
func (d *Display) Stop() {
	d.stopOnce.Do(func() {
		if d.display != nil {
			d.display.Close()
		}
		proctest.Stop(d.cmd, 3*time.Second)
	})
}

// Press injects a key as the display would: "ROUTE 3", "FWINRT", "LNDN", …
func (d *Display) Press(t testing.TB, key string) {
	t.Helper()
	if _, err := fmt.Fprintf(d.display, "%s\n", key); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // the vr driver drops keys that come faster
}

// Visuals returns every text the display showed, in order.
func (d *Display) Visuals() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.visuals...)
}

// WaitVisual waits until the display's current text satisfies ok, and returns it.
func (d *Display) WaitVisual(t testing.TB, what string, ok func(string) bool) string {
	t.Helper()
	v := d.waitVisuals(t, what, func(v []string) bool { return ok(last(v)) })
	return last(v)
}

// last is the last of v, or "" when v is empty.
func last(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// waitVisuals waits until what the display showed satisfies ok, woken by
// each line it shows, for upWait at most, and returns it.
func (d *Display) waitVisuals(t testing.TB, what string, ok func([]string) bool) []string {
	t.Helper()
	timeout := time.NewTimer(upWait)
	defer timeout.Stop()
	for {
		d.mu.Lock()
		seen, shown := append([]string(nil), d.visuals...), d.shown
		d.mu.Unlock()
		if ok(seen) {
			return seen
		}
		select {
		case <-shown:
		case <-timeout.C:
			t.Fatalf("display never showed %s; it showed %q", what, seen)
		}
	}
}
