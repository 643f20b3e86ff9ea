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

// A subscriber under --exec whose helper leaves its process group and
// session (setsid) is ended with it all the same: the helper outlived the
// run when only the group was killed.
func TestAttackSubscriberSetsidHelper(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "sub.sh")
	body := "#!/bin/sh\nsetsid sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' &\nwhile :; do sleep 1000; done\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	TestSubscriber(ctx, SubscriberOptions{Level: 1, Exec: script + " {endpoint}", Patience: time.Second}) //nolint:errcheck // only its end matters
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
			t.Fatalf("the subscriber's setsid helper (pid %d) still runs after the suite ended", pid)
		}
		runtime.Gosched()
	}
}
