// speechd.go holds Speechd, the speech-dispatcher backend that redials after a daemon restart.

package speech

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Speechd speaks through speech-dispatcher. It dials lazily and, when the
// daemon went away, dials again once per call before giving up.
type Speechd struct {
	Addr       Address
	ClientName string // e.g. "user:aaep-listen:main"

	mu       sync.Mutex // guards the fields below
	client   *Client    // nil until dialed or after the connection broke
	priority Priority
	lang     string

	state speaking // what the daemon says about the last text; its own lock
}

// maxResumable bounds the messages kept to be said again after a critical
// interruption; beyond it the oldest is let go.
const maxResumable = 256

// speaking follows the daemon's begin, end and cancel events for the last
// text sent, so a Pacer can wait for a voice slower than it estimated.
type speaking struct {
	mu    sync.Mutex
	last  string    // message id of the last text sent
	until time.Time // give up waiting for its end then: an event may never come
	done  bool      // its end or cancel arrived
	ended []string  // ids that ended recently, for an end seen before its id

	// unsaid are the messages to keep (Utterance.Keep: the agent's output
	// and others never to lose) sent and not yet ended, oldest first: what
	// an important utterance would cut or hold back, to be said again
	// after it, in order.
	unsaid []said
}

// said is a message sent to the daemon.
type said struct {
	id string
	u  Utterance
}

// sent notes the text with message id just sent, of so many words.
func (sp *speaking) sent(id string, u Utterance, words int) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	sp.last, sp.done = id, slices.Contains(sp.ended, id)
	if u.Priority == Message && u.Keep && !sp.done {
		sp.unsaid = append(sp.unsaid, said{id, u})
		if len(sp.unsaid) > maxResumable {
			sp.unsaid = sp.unsaid[1:]
		}
	}
	// No voice worth using is slower than 100 words a minute.
	sp.until = time.Now().Add(time.Duration(words)*600*time.Millisecond + 2*time.Second)
}

// event notes a 702 end or 703 cancel for message id.
func (sp *speaking) event(id string) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if id == sp.last {
		sp.done = true
	}
	sp.unsaid = slices.DeleteFunc(sp.unsaid, func(m said) bool { return m.id == id })
	sp.ended = append(sp.ended, id)
	if len(sp.ended) > 16 {
		sp.ended = sp.ended[1:]
	}
}

func (sp *speaking) reset() {
	sp.mu.Lock()
	sp.last, sp.done, sp.unsaid = "", true, nil
	sp.mu.Unlock()
}

// takeUnsaid returns the messages not yet ended and forgets them.
func (sp *speaking) takeUnsaid() []said {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	u := sp.unsaid
	sp.unsaid = nil
	return u
}

// Speaking reports whether the last text sent is still being said, as far as
// the daemon has told; it is false once that text ended, was cancelled, or
// has taken far longer than any voice would.
func (s *Speechd) Speaking() bool {
	sp := &s.state
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.last != "" && !sp.done && time.Now().Before(sp.until)
}

// watch follows c's events until the connection ends.
func (s *Speechd) watch(c *Client) {
	for {
		select {
		case ev := <-c.Events():
			if (ev.Code == 702 || ev.Code == 703) && len(ev.Lines) > 0 {
				s.state.event(ev.Lines[0])
			}
		case <-c.done:
			return
		}
	}
}

// NewSpeechd returns a backend for the daemon at addr, checking that it answers.
func NewSpeechd(ctx context.Context, addr Address, clientName string) (*Speechd, error) {
	s := &Speechd{Addr: addr, ClientName: clientName}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Name implements Backend.
func (s *Speechd) Name() string { return "speech-dispatcher" }

// connect returns the live client, dialing when there is none. s.mu is held.
func (s *Speechd) connect(ctx context.Context) (*Client, error) {
	if s.client != nil {
		return s.client, nil
	}
	c, err := Dial(ctx, s.Addr, s.ClientName)
	if err != nil {
		return nil, err
	}
	if err := c.Command(ctx, "SET SELF NOTIFICATION END on"); err == nil {
		if err := c.Command(ctx, "SET SELF NOTIFICATION CANCEL on"); err == nil {
			go s.watch(c)
		}
	}
	s.client, s.priority, s.lang = c, "", ""
	s.state.reset()
	return c, nil
}

// drop forgets a broken client. s.mu is held.
func (s *Speechd) drop() {
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
}

// Speak implements Backend.
func (s *Speechd) Speak(ctx context.Context, u Utterance) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if err = s.speak(ctx, u); err == nil || ctx.Err() != nil {
			return err
		}
		s.drop()
	}
	return err
}

func (s *Speechd) speak(ctx context.Context, u Utterance) error {
	c, err := s.connect(ctx)
	if err != nil {
		return err
	}
	if u.Priority == "" {
		u.Priority = Message
	}
	if u.Priority == Important {
		return s.interrupt(ctx, c, u)
	}
	return s.send(ctx, c, u)
}

// interrupt says an important utterance at once. speech-dispatcher would
// cut the message being said and drop it; so when a message to keep has
// not yet ended, what is queued is cancelled here and the messages to keep
// are said again after it, in the order they came: only chatter is ever
// lost to a critical announcement.
func (s *Speechd) interrupt(ctx context.Context, c *Client, u Utterance) error {
	held := s.state.takeUnsaid()
	if len(held) > 0 {
		if err := c.Command(ctx, "CANCEL self"); err != nil {
			return err
		}
	}
	if err := s.send(ctx, c, u); err != nil {
		return err
	}
	for _, m := range held {
		if err := s.send(ctx, c, m.u); err != nil {
			return err
		}
	}
	return nil
}

// send sends one utterance with its priority and language. s.mu is held.
func (s *Speechd) send(ctx context.Context, c *Client, u Utterance) error {
	if u.Priority != s.priority {
		if err := c.Command(ctx, "SET SELF PRIORITY "+string(u.Priority)); err != nil {
			return err
		}
		s.priority = u.Priority
	}
	if lang := ssipLanguage(u.Lang); lang != "" && lang != s.lang {
		if err := c.Command(ctx, "SET SELF LANGUAGE "+lang); err != nil {
			return err
		}
		s.lang = lang
	}
	id, err := c.Speak(ctx, u.Text)
	if err != nil {
		return err
	}
	if id != "" {
		s.state.sent(id, u, len(strings.Fields(u.Text)))
	}
	return nil
}

// Cancel implements Backend: CANCEL self. It does not wait for a Speak in
// progress to finish its retries, only for the command it is sending.
// (Hanging up would not do: speech-dispatcher goes on saying what a client
// that left had queued.)
func (s *Speechd) Cancel(ctx context.Context) error {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := c.Command(ctx, "CANCEL self"); err != nil {
		return err
	}
	s.state.reset()
	return nil
}

// Close implements Backend.
func (s *Speechd) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop()
	return nil
}

// ssipLanguage keeps the letters, digits and hyphens of a BCP 47 tag, so a
// hostile tag cannot smuggle a second command onto the line.
func ssipLanguage(tag string) string {
	tag = strings.TrimSpace(tag)
	if tag == "" || len(tag) > 35 {
		return ""
	}
	for _, r := range tag {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return tag
}
