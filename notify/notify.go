// notify.go holds Sink, which groups announcements into desktop notifications,
// and the Notifier contract it sends them through.

package notify

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
	"github.com/aaep-term/aaep-term/protocol"
)

// AppName is the application name notifications carry.
const AppName = "aaep-listen"

// Level says which announcements become notifications.
type Level string

// Levels.
const (
	Off      Level = "off"
	On       Level = "on"       // normal and critical announcements
	Critical Level = "critical" // critical announcements only
)

// ParseLevel reads a --notify value.
func ParseLevel(s string) (Level, error) {
	switch l := Level(s); l {
	case Off, On, Critical:
		return l, nil
	case "":
		return Off, nil
	}
	return "", fmt.Errorf("notify: unknown level %q: want on, off or critical", s)
}

// Notifier shows desktop notifications. Implementations must be safe for concurrent use.
type Notifier interface {
	// Notify shows a normal notification.
	Notify(title, body string) error
	// Alert shows a critical notification.
	Alert(title, body string) error
}

// Config tunes a Sink.
type Config struct {
	Level Level
	// Window is how long normal announcements after a notification are held
	// and summarized in one more notification. Zero means 4 seconds.
	Window time.Duration
	// OnError is told when a notification fails to show; nil ignores it.
	OnError func(error)
}

// Sink turns announcements into desktop notifications. It implements
// announce.Sink. Critical announcements are each shown at once; a normal one
// is shown at once when none was shown in the last Window, else it is held
// and the held ones are shown as one summary when the Window ends.
type Sink struct {
	n   Notifier
	cfg Config

	// sends carries notifications to the goroutine that shows them, so a slow
	// notification server never holds up the announcer.
	sends chan send
	done  chan struct{}

	mu     sync.Mutex // guards the fields below
	held   []announce.Announcement
	timer  *time.Timer // running while a window is open
	closed bool
}

// send is one notification to show.
type send struct {
	critical    bool
	title, body string
}

// NewSink returns a Sink sending through n. Close stops it.
func NewSink(n Notifier, cfg Config) *Sink {
	if cfg.Window <= 0 {
		cfg.Window = 4 * time.Second
	}
	s := &Sink{n: n, cfg: cfg, sends: make(chan send, 32), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *Sink) run() {
	defer close(s.done)
	for m := range s.sends {
		var err error
		if m.critical {
			err = s.n.Alert(m.title, m.body)
		} else {
			err = s.n.Notify(m.title, m.body)
		}
		if err != nil && s.cfg.OnError != nil {
			s.cfg.OnError(wrap(err))
		}
	}
}

// queue hands m to the sending goroutine: critical ones wait for room,
// others are dropped when the server is that far behind. s.mu is held.
func (s *Sink) queue(m send) {
	if s.closed {
		return
	}
	// The one place every notification passes: title and body become one
	// sanitized line (the body may be a summary of several lines), whoever built them.
	m.title, m.body = protocol.Line(m.title), protocol.Sanitize(m.body)
	if m.critical {
		s.sends <- m
		return
	}
	select {
	case s.sends <- m:
	default:
	}
}

// Announce implements announce.Sink.
func (s *Sink) Announce(an announce.Announcement) error {
	if an.Text == "" || s.cfg.Level == Off || an.Priority == announce.Background {
		return nil
	}
	if an.Priority != announce.Critical && s.cfg.Level != On {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if an.Priority == announce.Critical {
		s.queue(send{critical: true, title: title(an), body: protocol.Line(an.Text)})
		return nil
	}
	if s.timer != nil {
		s.held = append(s.held, an)
		if len(s.held) > 100 {
			s.held = s.held[len(s.held)-100:] // only the count and the last few are shown
		}
		return nil
	}
	s.timer = time.AfterFunc(s.cfg.Window, s.windowEnded)
	s.queue(send{title: title(an), body: protocol.Line(an.Text)})
	return nil
}

// windowEnded shows what was held, as one summary, and keeps the window open
// for one more period if anything was shown.
func (s *Sink) windowEnded() {
	s.mu.Lock()
	held := s.held
	s.held = nil
	if len(held) == 0 || s.closed {
		s.timer = nil
		s.mu.Unlock()
		return
	}
	s.timer = time.AfterFunc(s.cfg.Window, s.windowEnded)
	t, body := summary(held)
	s.queue(send{title: t, body: body})
	s.mu.Unlock()
}

// Close shows what is still held, waits for what is queued and stops the sink.
func (s *Sink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	if len(s.held) > 0 {
		t, body := summary(s.held)
		s.sends <- send{title: t, body: body} // the last word waits for room
	}
	s.held, s.closed = nil, true
	close(s.sends)
	s.mu.Unlock()
	<-s.done
	return nil
}

// summary words held announcements as one notification: their count and the last ones.
func summary(held []announce.Announcement) (string, string) {
	if len(held) == 1 {
		return title(held[0]), protocol.Line(held[0].Text)
	}
	last := held[max(0, len(held)-3):]
	lines := make([]string, 0, len(last))
	for _, an := range last {
		lines = append(lines, protocol.Line(an.Text))
	}
	body := strings.Join(lines, "\n")
	if more := len(held) - len(last); more > 0 {
		body = fmt.Sprintf("%s\nand %d earlier.", body, more)
	}
	return fmt.Sprintf("%s: %d announcements", AppName, len(held)), body
}

// title names who speaks, and says when the user is needed.
func title(an announce.Announcement) string {
	who := protocol.Name(an.Agent)
	if who == "" {
		who = AppName
	}
	if an.Priority == announce.Critical {
		switch an.Kind {
		case "confirmation", "clarification", "handoff":
			return who + " needs you"
		}
		return who + ": " + an.Kind
	}
	return who
}

func wrap(err error) error {
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}
