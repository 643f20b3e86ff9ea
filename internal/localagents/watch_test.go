//go:build linux

package localagents

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/aaep-term/aaep-term/producer"
	"github.com/aaep-term/aaep-term/session"
	"github.com/aaep-term/aaep-term/subscriber"
)

// serve runs the real producer on a Unix socket at path until the returned
// stop is called; stopping it removes the socket.
func serve(t *testing.T, path string, scenarios ...producer.Scenario) (stop func()) {
	t.Helper()
	p := producer.New(producer.Options{Scenarios: scenarios})
	ln, err := producer.ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.ServeUnix(ctx, ln) }()
	stop = func() { cancel(); <-done; p.Close() }
	t.Cleanup(stop)
	return stop
}

// next is the next change, or fails the test when none comes: the limit
// only stops a broken test, nothing waits for it to pass.
func next(t *testing.T, ch <-chan Change) Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatal("the watch ended early")
		}
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("no change reported")
	}
	return Change{}
}

func want(t *testing.T, got Change, path string, gone bool) {
	t.Helper()
	if got.Path != path || got.Gone != gone || got.Refused != "" || got.Err != nil {
		t.Fatalf("change %+v, want %s gone=%v", got, path, gone)
	}
}

// A socket there at the start, one made later, a file that is no socket,
// a socket removed and a producer stopped are each reported in turn, and
// the end of ctx ends the watch.
func TestWatch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aaep")
	a := filepath.Join(dir, "a.sock")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	serve(t, a)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a socket"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	want(t, next(t, ch), a, false)

	b := filepath.Join(dir, "b.sock")
	stopB := serve(t, b)
	want(t, next(t, ch), b, false)

	// A regular file, even one named like a socket, is not reported: the
	// next change is the socket made after it.
	if err := os.WriteFile(filepath.Join(dir, "c.sock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := filepath.Join(dir, "d.sock")
	serve(t, d)
	want(t, next(t, ch), d, false)

	stopB() // the producer's listener removes its socket
	want(t, next(t, ch), b, true)
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, ch), a, true)
	if err := os.Remove(filepath.Join(dir, "c.sock")); err != nil { // a file going is not a socket going
		t.Fatal(err)
	}

	cancel()
	for c := range ch {
		t.Errorf("after the end: %+v", c)
	}
}

// A directory that is not there is made, for the user alone.
func TestWatchMakesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aaep")
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 || !st.IsDir() {
		t.Fatalf("dir %v, %v; want a directory, 0700", st, err)
	}
	p := filepath.Join(dir, "late.sock")
	serve(t, p)
	want(t, next(t, ch), p, false)
	cancel()
	for range ch {
	}
}

// A socket of another user is reported once, refused with the reason, and
// its removal is not reported.
func TestWatchRefusesAnotherUsersSocket(t *testing.T) {
	if os.Getuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("making a socket of another user needs root; CI runs the tests as root")
		}
		t.Skip("making a socket of another user needs root")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Made elsewhere, given away, then moved in: it appears already theirs.
	other := filepath.Join(t.TempDir(), "other.sock")
	ln, err := net.Listen("unix", other)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Lchown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "other.sock")
	if err := os.Rename(other, in); err != nil {
		t.Fatal(err)
	}
	c := next(t, ch)
	if c.Path != in || c.Gone || !strings.Contains(c.Refused, "belongs to user 65534") {
		t.Fatalf("change %+v, want %s refused as another user's", c, in)
	}
	if err := os.Remove(in); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.sock")
	serve(t, mine)
	want(t, next(t, ch), mine, false)
}

// A directory others may write in, a link or a file is refused.
func TestWatchRefusesUnsafeDir(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{open, "others may write"},
		{link, "symbolic link"},
		{file, "not a directory"},
		{filepath.Join(base, "no", "parent"), "cannot make"},
	} {
		if _, err := Watch(context.Background(), tc.dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.dir, err, tc.want)
		}
	}
}

// When the directory goes, the agents in it are reported gone, then the
// end of the watch, and the channel closes.
func TestWatchDirRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aaep")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a.sock")
	stop := serve(t, p)
	want(t, next(t, ch), p, false)
	stop()
	want(t, next(t, ch), p, true)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if c := next(t, ch); c.Err == nil || !strings.Contains(c.Err.Error(), "removed or moved") {
		t.Fatalf("change %+v, want the end of the watch", c)
	}
	if c, ok := <-ch; ok {
		t.Fatalf("after the end: %+v", c)
	}
}

// A producer that starts after the watch is subscribed to at the endpoint
// the watch gives, announces its events, and is reported gone when it stops.
func TestWatchedProducerSubscribed(t *testing.T) {
	all, err := producer.LoadScenarios(os.DirFS("../../demo"), "scenarios")
	if err == nil {
		all, err = producer.SelectScenarios(all, []string{"confirm"})
	}
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "aaep")
	ch, err := Watch(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mail.sock")
	stop := serve(t, path, all...)
	c := next(t, ch)
	want(t, c, path, false)
	if Label(c.Path) != "mail" {
		t.Errorf("label %q, want mail", Label(c.Path))
	}
	sub, err := subscriber.Dial(ctx, Endpoint(c.Path), subscriber.Config{
		Identity: session.Identity{ID: "test", Name: "localagents-test", Version: "1"},
		Terms:    session.Terms{Verbosity: "normal", CanConfirm: true, CanClarify: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	for {
		u, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if u.Kind == subscriber.KindDelivery && u.Delivery.Event != nil {
			break // the agent speaks
		}
	}
	stop()
	want(t, next(t, ch), path, true)
}

// When the kernel's queue overflows and events are lost, the directory is
// read again and the difference reported: what went, then what came.
func TestWatchOverflowRescans(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.sock")
	came := filepath.Join(dir, "came.sock")
	serve(t, kept)
	serve(t, came)
	w := &watcher{dir: dir, out: make(chan Change, 8), known: map[string]bool{"kept.sock": true, "went.sock": true, "refused.sock": false}}
	ev := make([]byte, unix.SizeofInotifyEvent)
	(*unix.InotifyEvent)(unsafe.Pointer(&ev[0])).Mask = unix.IN_Q_OVERFLOW
	if !w.events(context.Background(), ev) {
		t.Fatal("the watch ended")
	}
	close(w.out)
	var got []Change
	for c := range w.out {
		got = append(got, c)
	}
	if len(got) != 2 {
		t.Fatalf("changes %+v, want went.sock gone and came.sock new", got)
	}
	want(t, got[0], filepath.Join(dir, "went.sock"), true)
	want(t, got[1], came, false)
}
