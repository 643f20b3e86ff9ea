// notify.go holds Sink, which groups announcements into desktop notifications,
// and the Notifier contract it sends them through.

package notify

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aaep-term/aaep-term/announce"
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
	// OnError is told when a grouped summary fails to show; nil ignores it.
	OnError func(error)
}

// Sink turns announcements into desktop notifications. It implements
// announce.Sink. Critical announcements are each shown at once; a normal one
// is shown at once when none was shown in the last Window, else it is held
// and the held ones are shown as one summary when the Window ends.
type Sink struct {
	n   Notifier
	cfg Config

	mu     sync.Mutex // guards the fields below
	held   []announce.Announcement
	timer  *time.Timer // running while a window is open
	closed bool
}

// NewSink returns a Sink sending through n.
func NewSink(n Notifier, cfg Config) *Sink {
	if cfg.Window <= 0 {
		cfg.Window = 4 * time.Second
	}
	return &Sink{n: n, cfg: cfg}
}

// Announce implements announce.Sink.
func (s *Sink) Announce(an announce.Announcement) error {
	if an.Text == "" || s.cfg.Level == Off || an.Priority == announce.Background {
		return nil
	}
	if an.Priority == announce.Critical {
		return wrap(s.n.Alert(title(an), an.Text))
	}
	if s.cfg.Level != On {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
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
	return wrap(s.n.Notify(title(an), an.Text))
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
	s.mu.Unlock()
	t, body := summary(held)
	if err := s.n.Notify(t, body); err != nil && s.cfg.OnError != nil {
		s.cfg.OnError(wrap(err))
	}
}

// Close shows what is still held and stops the sink.
func (s *Sink) Close() error {
	s.mu.Lock()
	held := s.held
	s.held, s.closed = nil, true
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	if len(held) == 0 {
		return nil
	}
	return wrap(s.n.Notify(summary(held)))
}

// summary words held announcements as one notification: their count and the last ones.
func summary(held []announce.Announcement) (string, string) {
	if len(held) == 1 {
		return title(held[0]), held[0].Text
	}
	last := held[max(0, len(held)-3):]
	lines := make([]string, 0, len(last))
	for _, an := range last {
		lines = append(lines, an.Text)
	}
	body := strings.Join(lines, "\n")
	if more := len(held) - len(last); more > 0 {
		body = fmt.Sprintf("%s\nand %d earlier.", body, more)
	}
	return fmt.Sprintf("%s: %d announcements", AppName, len(held)), body
}

// title names who speaks, and says when the user is needed.
func title(an announce.Announcement) string {
	who := an.Agent
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
