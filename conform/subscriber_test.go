package conform

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aaep-term/aaep-term/internal/ttytest"
)

// listenCommand builds the real aaep-listen and returns the --exec line
// that runs it in plain line mode against the suite, plus extra flags.
func listenCommand(t *testing.T, extra ...string) string {
	t.Helper()
	bin := ttytest.Build(t, "../cmd/aaep-listen", "aaep-listen")
	// Its environment goes on its command line (env(1)), not into this
	// process's, so tests using it may run in parallel.
	home := t.TempDir()
	env := []string{"env", "HOME=" + home, "XDG_CONFIG_HOME=" + home, "TERM=dumb"}
	return strings.Join(append(append(env, bin, "{endpoint}", "--plain", "--no-sign"), extra...), " ")
}

func runSubscriber(t *testing.T, o SubscriberOptions) map[string]Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out strings.Builder // shown when the test fails
	if o.Output == nil {
		o.Output = &lockedWriter{w: &out}
	}
	rep, err := TestSubscriber(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the subscriber wrote:\n%s", out.String())
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
		t.Logf("%s %s: %s", r.Status, r.ID, r.Detail)
	}
	return got
}

// The real aaep-listen passes every subscriber test at Level 3, over
// both bindings the suite serves.
func TestSubscriberListen(t *testing.T) {
	t.Parallel()
	exec := listenCommand(t)
	for _, binding := range []string{BindingSSE, BindingWebSocket} {
		t.Run(binding, func(t *testing.T) {
			t.Parallel()
			got := runSubscriber(t, SubscriberOptions{Level: 3, Exec: exec, Binding: binding, Shutdown: ShutdownInterrupt})
			if len(got) != len(SubscriberTests()) {
				t.Errorf("%d results, want %d", len(got), len(SubscriberTests()))
			}
			for id, r := range got {
				if r.Status != Pass {
					t.Errorf("%s: %s, want pass: %s\n%+v", id, r.Status, r.Detail, r.Evidence)
				}
			}
		})
	}
}

// A subscriber that answers on its own — aaep-listen told to reject every
// confirmation without asking — fails exactly the tests that no reply comes
// without a user action and that each reply says what the user typed (it
// rejected before the user could accept), and no other.
func TestSubscriberAutoReply(t *testing.T) {
	t.Parallel()
	got := runSubscriber(t, SubscriberOptions{Level: 3, Exec: listenCommand(t, "--auto-reply", "reject")})
	for id, r := range got {
		want := Pass
		if id == idSubNoAuto || id == idSubAsTyped {
			want = Fail
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s: %s", id, r.Status, want, r.Detail)
		}
	}
	if r := got[idSubNoAuto]; !strings.Contains(r.Detail, "before the user did anything") {
		t.Errorf("the failure does not say why: %q", r.Detail)
	}
}

// Without --exec the suite waits for a subscriber and tests what needs no
// user action; the rest is skipped with the reason.
func TestSubscriberWithoutExec(t *testing.T) {
	t.Parallel()
	command := listenCommand(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan *exec.Cmd, 1)
	o := SubscriberOptions{Level: 3, Ready: func(endpoint string) {
		args := strings.Fields(strings.ReplaceAll(command, "{endpoint}", endpoint))
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdin = blockingReader{ctx.Done()} // a user who never types
		if err := cmd.Start(); err != nil {
			t.Error(err)
		}
		started <- cmd
	}}
	got := runSubscriber(t, o)
	cancel()
	(<-started).Wait() //nolint:errcheck // killed
	skipped := []string{idSubTokenEcho, idSubReplyKind, idSubAsTyped, idSubRenegotiate, idSubClose,
		idSubAnnounces, idSubTerminals, idSubCritical, idSubDedupe, idSubOrder, idSubPressure}
	for id, r := range got {
		want := Pass
		if slices.Contains(skipped, id) {
			want = Skip
			if !strings.Contains(r.Detail, "--exec") {
				t.Errorf("%s: the skip does not say how to run it: %q", id, r.Detail)
			}
		}
		if r.Status != want {
			t.Errorf("%s: %s, want %s: %s", id, r.Status, want, r.Detail)
		}
	}
}

// blockingReader reads nothing until done is closed, then ends.
type blockingReader struct{ done <-chan struct{} }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.done
	return 0, io.EOF
}

// At Levels 1 and 2 only their tests run, and aaep-listen passes them.
func TestSubscriberLevels(t *testing.T) {
	t.Parallel()
	command := listenCommand(t)
	for _, level := range []Level{1, 2} {
		got := runSubscriber(t, SubscriberOptions{Level: level, Exec: command, Shutdown: ShutdownInterrupt})
		want := 0
		for _, tc := range SubscriberTests() {
			if tc.Level <= level {
				want++
			}
		}
		if len(got) != want {
			t.Errorf("level %d: %d results, want %d", level, len(got), want)
		}
		for id, r := range got {
			if r.Status != Pass {
				t.Errorf("level %d: %s: %s, want pass: %s", level, id, r.Status, r.Detail)
			}
		}
	}
}

// lockedWriter is a writer for two goroutines (the subscriber's output
// and error).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
