package localagents

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchMask is what the directory is watched for: names that appear (made
// or renamed in), names that go (removed or renamed away), the directory
// itself going. IN_ONLYDIR and IN_DONT_FOLLOW refuse a directory swapped
// for a link or a file after it was checked.
const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_DELETE | unix.IN_MOVED_FROM |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// Watch reports the producer sockets in dir (see Dir): first one Change for
// each socket there now, then one for each socket made or removed, until
// ctx ends; then the channel closes. It waits on the kernel's inotify
// events, never on a timer. A dir that does not exist yet is made (0700;
// its parent must exist), so producers started later find it; a dir that
// others may write in is refused. Files that are not sockets are ignored;
// a socket of another user is reported with Refused, never offered.
//
// Changes are sent in the order they happened and never dropped: when the
// reader is slow the kernel queues events, and when its queue overflows the
// directory is read again and the difference reported.
func Watch(ctx context.Context, dir string) (<-chan Change, error) {
	if err := prepare(dir); err != nil {
		return nil, err
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("localagents: inotify: %w", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, watchMask); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("localagents: watch %s: %w", dir, err)
	}
	// Non-blocking, the descriptor joins the runtime's poller: a Read waits
	// without a thread, and Close ends it.
	f := os.NewFile(uintptr(fd), "inotify")
	w := &watcher{dir: dir, f: f, out: make(chan Change), known: map[string]bool{}}
	// The watch is in place before the directory is read: a socket made
	// meanwhile is seen by both and reported once.
	go w.run(ctx)
	return w.out, nil
}

// watcher is one Watch; its fields belong to its goroutine.
type watcher struct {
	dir   string
	f     *os.File
	out   chan Change
	known map[string]bool // name → offered (true) or refused (false)
}

func (w *watcher) run(ctx context.Context) {
	defer close(w.out)
	stop := context.AfterFunc(ctx, func() { w.f.Close() })
	defer stop()
	defer w.f.Close()
	if !w.rescan(ctx) {
		return
	}
	buf := make([]byte, 64<<10) // room for hundreds of events
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			if ctx.Err() == nil {
				w.end(ctx, fmt.Errorf("localagents: reading the events of %s: %w", w.dir, err))
			}
			return
		}
		if !w.events(ctx, buf[:n]) {
			return
		}
	}
}

// events handles the inotify events in b; it reports false when the watch ends.
func (w *watcher) events(ctx context.Context, b []byte) bool {
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		size := unix.SizeofInotifyEvent + int(ev.Len)
		if size > len(b) {
			return true // the kernel writes whole events; this cannot happen
		}
		name := cName(b[unix.SizeofInotifyEvent:size])
		b = b[size:]
		switch {
		case ev.Mask&unix.IN_Q_OVERFLOW != 0:
			if !w.rescan(ctx) {
				return false
			}
		case ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0:
			w.end(ctx, fmt.Errorf("localagents: %s was removed or moved; no longer watching for agents there", w.dir))
			return false
		case name == "":
		case ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
			if !w.appeared(ctx, name) {
				return false
			}
		case ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
			if !w.went(ctx, name) {
				return false
			}
		}
	}
	return true
}

// cName is the NUL-padded name of an inotify event.
func cName(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// appeared reports the socket name if it is new to the watch.
func (w *watcher) appeared(ctx context.Context, name string) bool {
	if _, seen := w.known[name]; seen {
		return true
	}
	path := filepath.Join(w.dir, name)
	ok, refused := inspect(path)
	if !ok {
		return true // not a socket, or already gone again
	}
	w.known[name] = refused == ""
	return w.send(ctx, Change{Path: path, Refused: refused})
}

// went reports the socket name gone if it was offered.
func (w *watcher) went(ctx context.Context, name string) bool {
	offered, seen := w.known[name]
	if !seen {
		return true
	}
	delete(w.known, name)
	if !offered {
		return true
	}
	return w.send(ctx, Change{Path: filepath.Join(w.dir, name), Gone: true})
}

// rescan reads the directory and reports what changed since the watch last
// knew it: at the start, everything there; after lost events, the difference.
func (w *watcher) rescan(ctx context.Context) bool {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		w.end(ctx, fmt.Errorf("localagents: reading %s: %w", w.dir, err))
		return false
	}
	there := map[string]bool{}
	for _, e := range entries {
		there[e.Name()] = true
	}
	for _, name := range slices.Sorted(maps.Keys(w.known)) {
		if ok, _ := inspect(filepath.Join(w.dir, name)); !there[name] || !ok {
			if !w.went(ctx, name) {
				return false
			}
		}
	}
	for _, e := range entries { // ReadDir sorts by name
		if !w.appeared(ctx, e.Name()) {
			return false
		}
	}
	return true
}

// end reports every offered socket gone and then err, which ends the watch.
func (w *watcher) end(ctx context.Context, err error) {
	for _, name := range slices.Sorted(maps.Keys(w.known)) {
		if !w.went(ctx, name) {
			return
		}
	}
	w.send(ctx, Change{Err: err})
}

// send hands c to the reader, unless ctx ends first.
func (w *watcher) send(ctx context.Context, c Change) bool {
	select {
	case w.out <- c:
		return true
	case <-ctx.Done():
		return false
	}
}
