package conform

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gone reports whether process pid has ended: it is not there, or it is a
// zombie waiting to be reaped.
func gone(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] == 'Z'
}

// A subscriber under --exec that forks a helper and never exits is ended
// with everything it started: no process of it outlives the suite.
func TestAttackSubscriberForksAndNeverExits(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "sub.sh")
	body := "#!/bin/sh\ntrap '' INT TERM HUP\nsleep 1000 &\necho $! > " + pidFile + "\nwhile :; do sleep 1000; done\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := TestSubscriber(ctx, SubscriberOptions{Level: 1, Exec: script + " {endpoint}", Patience: time.Second})
	if err == nil && rep.Conforming() {
		t.Errorf("a subscriber that never connected is conformant: %q", rep.Claim())
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the subscriber did not start its helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill() //nolint:errcheck // gone already when the test passes
		}
	})
	// SIGKILL is delivered at once, but the process takes a moment to die.
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the subscriber's helper (pid %d) still runs after the suite ended", pid)
		}
		runtime.Gosched()
	}
}
